import CamsyncPolicy
import CamsyncCoordinator
import CamsyncWire
@testable import CamsyncNode
import CamsyncCoordinatorCore

/// A `NodeSession` wired to the real `CoordinatorCore`, without sockets, a journal or clocks: what
/// the session sends goes to the core as the ROUTER would deliver it; the core's replies and
/// pushes to the node's route come back to the session as its DEALER would deliver them. Every append is
/// taken as durable at once (the write-ahead contract's `turnCommitted`).
struct CoordinatorCoreLink {
    var core: CoordinatorCore
    let route: [UInt8]

    init(node: String = NodeSessionHarness.node.rawValue, term: UInt64 = 1) {
        core = CoordinatorCore(settings: CoordinatorSettings(dataDirectory: "", durability: .off), term: term)
        core.beginServing(at: Self.at(0))
        route = Array(node.utf8)
    }

    /// The harness's clock, as the coordinator is told it.
    static func at(_ ms: Int64) -> CoordinatorTime {
        let node = NodeSessionHarness.at(ms)
        return CoordinatorTime(monotonicMilliseconds: node.monotonic, wallMilliseconds: node.wall.milliseconds)
    }

    /// Runs `actions` (a session's) through the core and the core's answers back through the session,
    /// until nothing more is sent, one millisecond a message from `ms` on. Returns every action the
    /// session produced, `actions` first.
    mutating func exchange(_ session: inout NodeSession, _ actions: [NodeAction], at ms: Int64) -> [NodeAction] {
        var all = actions, queue = actions, time = ms
        for _ in 0..<50 where !queue.isEmpty {
            var answers: [CoordinatorAction] = []
            for case .send(let envelope) in queue {
                let frame = InboundFrame(frames: [route, envelope.serializedBytes()])
                answers += core.runTurn(at: Self.at(time)) { $0.receive(frame, at: Self.at(time)) }
            }
            queue = []
            for answer in answers {
                time += 1
                switch answer {
                case .push(let routingID, let topic, let publication) where routingID == route:
                    queue += session.receivePublication([Array(topic.utf8), publication.bytes], now: NodeSessionHarness.at(time))
                case .reply(let routingID, let envelope) where routingID == route:
                    queue += session.receiveReply([envelope.serializedBytes()], now: NodeSessionHarness.at(time))
                case .answer(let routingID, let requestID, let shared) where routingID == route:
                    queue += session.receiveReply([shared.bytes(answering: requestID)], now: NodeSessionHarness.at(time))
                default:
                    break
                }
            }
            all += queue
        }
        return all
    }

    /// An admin's command through the core (another node's, as far as the session is concerned); its
    /// publications reach the session unless `lost`, and whatever the session answers goes on.
    @discardableResult
    mutating func admin(_ command: Command, _ session: inout NodeSession, at ms: Int64, lost: Bool = false) -> [NodeAction] {
        let frame = InboundFrame(frames: [Array("admin".utf8), Envelope.request(command, sender: "admin", requestID: UInt64(ms)).serializedBytes()])
        return deliver(core.runTurn(at: Self.at(ms)) { $0.receive(frame, at: Self.at(ms)) }, to: &session, at: ms, lost: lost)
    }

    /// Time passes at the core (heartbeats, group bookmarks); what it pushes to the node reaches the session.
    @discardableResult
    mutating func tick(_ session: inout NodeSession, at ms: Int64) -> [NodeAction] {
        deliver(core.runTurn(at: Self.at(ms)) { $0.tick(at: Self.at(ms)) }, to: &session, at: ms, lost: false)
    }

    private mutating func deliver(_ answers: [CoordinatorAction], to session: inout NodeSession, at ms: Int64, lost: Bool) -> [NodeAction] {
        var actions: [NodeAction] = []
        for case .push(let routingID, let topic, let publication) in answers where !lost && routingID == route {
            actions += session.receivePublication([Array(topic.utf8), publication.bytes], now: NodeSessionHarness.at(ms))
        }
        return exchange(&session, actions, at: ms + 1)
    }
}
