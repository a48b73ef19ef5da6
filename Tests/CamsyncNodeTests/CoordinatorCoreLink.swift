import CamsyncCoordinator
import CamsyncWire
@testable import CamsyncNode

/// A `NodeSession` wired to the real `CoordinatorCore`, without sockets, a journal or clocks: what
/// the session sends goes to the core as the ROUTER would deliver it; the core's replies and
/// publications come back to the session as its DEALER and SUB would deliver them. Every append is
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
                case .publish(let topic, let publication):
                    queue += session.receivePublication([Array(topic.utf8), publication.bytes], now: NodeSessionHarness.at(time))
                case .reply(let routingID, let envelope) where routingID == route:
                    queue += session.receiveReply([envelope.serializedBytes()], now: NodeSessionHarness.at(time))
                default:
                    break
                }
            }
            all += queue
        }
        return all
    }
}
