public import CamsyncStats
public import CamsyncEtcd
import Foundation
import CamsyncEtcdModel

/// The raw cost of a leader's group-commit write: `commit(_:ifLeading:)` of one small put,
/// one at a time, timed on the monotonic clock. The floor an etcd-backed coordinator adds per batch.
public enum EtcdRoundTrip {
    public struct Summary: Sendable, CustomStringConvertible {
        public var count: Int
        public var median: Duration
        public var p99: Duration
        public var max: Duration
        /// The 1-minute load average when the run ended.
        public var loadAverage: Double
        /// Every timed commit, in order.
        public var samples: [Duration] = []

        /// The distribution in microseconds (for `camsync bench`).
        public var latency: LatencySummary {
            LatencySummary(microseconds: samples.map { Double($0.components.seconds) * 1e6 + Double($0.components.attoseconds) / 1e12 })
        }

        public var description: String {
            "txn round trip over \(count) commits: median \(Self.ms(median)) ms, p99 \(Self.ms(p99)) ms, max \(Self.ms(max)) ms (load average \(loadAverage))"
        }

        static func ms(_ duration: Duration) -> String {
            String(format: "%.3f", Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
        }
    }

    /// Campaigns for `election` on a fresh lease, then times `count` conditional commits
    /// (after `warmup` untimed ones) of a `valueBytes`-byte put each.
    public static func measure(client: EtcdClient, election: String = "camsync/bench/leader", count: Int = 1000,
                               warmup: Int = 50, valueBytes: Int = 64) async throws -> Summary {
        let lease = try await client.grantLease(ttlSeconds: 30)
        do {
            let summary = try await measure(client: client, leadership: try await client.campaign(election, lease: lease, value: []),
                                            count: count, warmup: warmup, valueBytes: valueBytes)
            try await client.revoke(lease)
            return summary
        } catch {
            try? await client.revoke(lease)
            throw error
        }
    }

    private static func measure(client: EtcdClient, leadership: EtcdLeadership, count: Int, warmup: Int,
                                valueBytes: Int) async throws -> Summary {
        let value = [UInt8](repeating: 0x5a, count: valueBytes)
        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(count)
        for index in 0..<(warmup + count) {
            let started = clock.now
            try await client.commit([.put(key: "camsync/bench/log/\(index)", value: value)], ifLeading: leadership)
            if index >= warmup { samples.append(clock.now - started) }
        }
        let sorted = samples.sorted()
        return Summary(count: sorted.count, median: sorted[sorted.count / 2],
                       p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)], max: sorted[sorted.count - 1],
                       loadAverage: loadAverage(), samples: samples)
    }

    static func loadAverage() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Double($0) } ?? 0
    }
}

extension EtcdRoundTrip {
    /// The raw ceiling of a pipelined leader's log: conditional puts of `valueBytes` each, `inFlight`
    /// at once (each conditional on the leader key, as a turn is), for `seconds`, from `client`.
    /// Transactions per second, and how many got no answer within the request deadline.
    public static func pipelinedPuts(client: EtcdClient, valueBytes: Int, inFlight: Int, seconds: Double,
                                     election: String = "camsync/bench/ceiling") async throws -> (putsPerSecond: Double, timedOut: Int) {
        let lease = try await client.grantLease(ttlSeconds: 30)
        defer { Task { try? await client.revoke(lease) } }
        let leadership = try await client.campaign(election, lease: lease, value: [])
        let value = [UInt8](repeating: 0x5a, count: max(1, valueBytes))
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + .milliseconds(Int64(seconds * 1_000))
        // A put that etcd does not answer within the request deadline (a loaded machine) is not
        // counted, and the lane goes on: the time it took stays in the measurement.
        let (done, timedOut) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for lane in 0..<max(1, inFlight) {
                group.addTask {
                    var count = 0, timedOut = 0
                    while clock.now < deadline {
                        do {
                            try await client.commit([.put(key: "camsync/bench/ceiling/\(lane)/\(count % 64)", value: value)],
                                                    ifLeading: leadership)
                            count += 1
                        } catch let error as EtcdError where error.code == .timedOut {
                            timedOut += 1
                        }
                    }
                    return (count, timedOut)
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let elapsed = clock.now - started
        return (Double(done) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18), timedOut)
    }
}
