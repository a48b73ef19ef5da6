import CamsyncRuntime
import CamsyncStats
import ZeroMQ

/// A `LeaderFollowingClient` (a command every `intervalMilliseconds`) on a thread of its own, for a
/// window in which the bench's thread blocks: stopping and starting the fleet's shard processes takes
/// it tens of milliseconds and more, and a client served by that thread counted the wait for its
/// answer as the leader's. Records each acknowledged command's send → ack from `measure(from:)` on;
/// `stop()` ends the thread and returns them.
final class SteadyClient {
    private let measuringSince = Locked<UInt64?>(nil)
    private let stopped = Locked(false)
    private let latencies = Locked<[Double]>([])
    private let failure = Locked<String?>(nil)
    private var thread: JoinableThread?

    init(context: ZMQContext, commandEndpoints: [String], node: String, leader: Int, intervalMilliseconds: UInt64,
         curve: (serverKey: String, keys: CurveKeyPair)?) throws {
        thread = try JoinableThread { [measuringSince, stopped, latencies, failure] in
            do {
                let client = try LeaderFollowingClient(context: context, commandEndpoints: commandEndpoints, node: node, target: leader,
                                                       intervalMilliseconds: intervalMilliseconds, curve: curve)
                defer { client.close() }
                while !stopped.withLock({ $0 }) {
                    for answer in try client.pump(milliseconds: 5) where answer.accepted {
                        guard let since = measuringSince.withLock({ $0 }), answer.sentAt >= since else { continue }
                        latencies.withLock { $0.append(Double(answer.at - answer.sentAt) / 1000) }
                    }
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
    }

    /// Commands sent from `instant` (monotonic ns) on are recorded.
    func measure(from instant: UInt64) { measuringSince.withLock { $0 = instant } }

    /// Ends the thread; the recorded send → ack latencies. Throws what stopped the client, if anything did.
    func stop() throws -> LatencySummary {
        stopped.withLock { $0 = true }
        thread?.join()
        thread = nil
        if let failure = failure.withLock({ $0 }) { throw BenchError("the steady client failed: \(failure)") }
        return LatencySummary(microseconds: latencies.withLock { $0 })
    }
}
