import CamsyncRuntime
import CamsyncWire
import ZeroMQ

/// SUB sockets as HA nodes hold them: each connected to every coordinator's event endpoint and
/// subscribed to coordinator heartbeats (`hb`). A node learns the leader from its heartbeat (it
/// names the coordinator and its term), so "every node follows the new leader" is measured as: each
/// socket has received a heartbeat of a term above the old leader's.
final class LeaderHeartbeats {
    private let sockets: [BatchSubscriber]
    private var seen: [UInt64?]

    init(context: ZMQContext, eventEndpoints: [String], count: Int) throws {
        sockets = try (0..<count).map { _ in
            let subscriber = try BatchSubscriber(context: context, endpoint: eventEndpoints[0], topics: ["hb"])
            for endpoint in eventEndpoints.dropFirst() { try subscriber.socket.connect(endpoint) }
            return subscriber
        }
        seen = Array(repeating: nil, count: count)
    }

    var count: Int { sockets.count }

    /// Forget what was seen; heartbeats of `term` or below do not count from now on.
    func reset() throws {
        for socket in sockets { try socket.drain() }
        seen = Array(repeating: nil, count: sockets.count)
    }

    /// Reads what has arrived; returns the instant (monotonic ns) each socket first saw a heartbeat
    /// with a term above `term` (nil for those that have not yet).
    func poll(newerThan term: UInt64) throws -> [UInt64?] {
        for (index, subscriber) in sockets.enumerated() where seen[index] == nil {
            while let message = try subscriber.socket.receive(dontWait: true) {
                guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]),
                      case .coordinatorHeartbeat(let heartbeat)? = envelope.body, heartbeat.term > term else { continue }
                seen[index] = Clock.monotonicNanoseconds()
                break
            }
        }
        return seen
    }

    func close() { for socket in sockets { socket.close() } }
}
