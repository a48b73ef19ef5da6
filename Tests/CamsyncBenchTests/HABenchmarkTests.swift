import CamsyncBench
import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing

/// The HA benchmarks in their quick form, against real coordinators on a real 3-member etcd: each
/// produces its rows and target checks. Timings are never asserted (this machine is shared).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(5)),
       .enabled(if: EtcdCluster.isAvailable, Comment(rawValue: EtcdCluster.unavailableMessage)))
struct HABenchmarkTests {
    @Test("ha-latency: claim → grant on etcd over mutual TLS and in plaintext, each beside its raw etcd txn, and the ZeroMQ floor")
    func latencyRows() throws {
        let result = try run(.haLatency)
        #expect(result.rows.contains { $0.benchmark == "floor" && $0.scenario.hasPrefix("raw DEALER/ROUTER") })
        for label in ["mutual TLS + auth", "plaintext"] {
            #expect(result.rows.contains { $0.benchmark == "floor" && $0.scenario.hasPrefix("raw etcd txn (\(label))")
                && ($0.latency?.count ?? 0) > 0 }, "\(label)")
            let claims = try #require(result.rows.first {
                $0.benchmark == "ha-latency" && $0.scenario.hasPrefix("claim → ack + grant, log on etcd (\(label))")
            })
            #expect((claims.latency?.count ?? 0) > 0 && claims.floorP50 != nil)
        }
        #expect(result.targets.map(\.figure) == ["claim→grant p50, log on etcd (mutual TLS + auth)",
                                                 "claim→grant p50, log on etcd (plaintext)"])
    }

    @Test("ha-failover: kill -9 of the leader → etcd, first ack, every node following, with 3 and 200 real node sessions, at default and tuned settings; K7: no registration, no snapshot, no reconnection")
    func failoverRows() throws {
        let result = try run(.haFailover)
        #expect(result.rows.count == 16, "2 settings × (3, 200 nodes) × (etcd, first ack, every node, first ack → every node)")
        for row in result.rows { #expect((row.latency?.count ?? 0) >= 1, "\(row.scenario)") }
        #expect(result.rows.filter { $0.scenario.contains("first ack by the new leader") }.count == 4)
        #expect(result.rows.filter { $0.scenario.contains("200 nodes: kill -9 → every node follows") }.count == 2)
        #expect(result.targets.filter { $0.figure.contains("every node follows, most after the first ack") }.count == 2,
                "the follow target is checked per trial for the 200-node rows")
        let figures = result.targets.map(\.figure)
        // 3 nodes: first ack p50 (and max, default), registrations, snapshots, reconnections; 200 nodes (a
        // 2 s suspicion window, HAFailoverBenchmark.runOne): every node follows, registrations, snapshots,
        // reconnections.
        #expect(figures.count == 17)
        #expect(figures.filter { $0.contains("registrations caused") }.count == 4)
        #expect(figures.filter { $0.contains("snapshot requests caused") }.count == 4)
        #expect(figures.filter { $0.contains("connections reopened") }.count == 4)
        // K7 is behaviour, not timing: a leader change re-registers nobody, costs no snapshot, and no
        // node opens a connection (the new leader's was open already).
        for target in result.targets where Self.isCaused(target.figure) {
            #expect(target.measured == 0, "\(target.figure): \(target.measured)")
        }
    }

    @Test("fleet-failover: kill -9 of the leader with 200 nodes in a fleet shard process, CURVE on every connection → etcd, first ack, every node following; K7: no registration, no snapshot, no reconnection; a mass rejoin of the 200 moves no leadership")
    func fleetFailoverRows() throws {
        let result = try run(.fleetFailover)
        // The deployed configuration: the coordinators admit only the nodes' and the bench's CURVE keys.
        let label = "200 nodes in 1 shard processes, heartbeat 500 ms, CURVE"
        #expect(result.rows.count == 7, "joining, then etcd, first ack, every node, first ack → every node; the mass rejoin and the client's acks meanwhile")
        #expect(result.rows.first?.scenario.contains("\(label): start → all registered, synced and following the leader") == true)
        for row in result.rows {
            #expect((row.latency?.count ?? 0) >= 1 && row.scenario.contains("(load "), "\(row.scenario)")
        }
        #expect(result.rows.filter { $0.scenario.contains("kill -9 → every node follows the new leader") }.count == 1)
        let figures = result.targets.map(\.figure)
        #expect(figures.count == 8, """
            first ack p50 and max, every node follows, registrations, snapshots, reconnections; the mass rejoin's time and \
            the client's ack p99: \(figures)
            """)
        #expect(result.rows.contains { $0.scenario.contains("every node process restarted at once → all rejoined") },
                "the mass rejoin ran, and moved no leadership (a move fails the run)")
        // K7 is behaviour, not timing: a leader change re-registers nobody, costs no snapshot, reopens nothing.
        #expect(figures.filter(Self.isCaused).count == 3)
        for target in result.targets where Self.isCaused(target.figure) {
            #expect(target.measured == 0, "\(target.figure): \(target.measured)")
        }
    }

    /// A figure of what a leader change caused (registrations, snapshot requests, reopened connections).
    static func isCaused(_ figure: String) -> Bool {
        figure.contains("registrations caused") || figure.contains("snapshot requests caused") || figure.contains("connections reopened")
    }

    @Test("ha-throughput: commands/s through the leader on etcd, beside the raw ceiling of the same etcd")
    func throughputRows() throws {
        let result = try run(.haThroughput)
        let rows = result.rows.filter { $0.benchmark == "ha-throughput" }
        #expect(!rows.isEmpty && rows.allSatisfy { ($0.throughputPerSecond ?? 0) > 0 })
        #expect(rows.filter { $0.scenario.hasPrefix("raw ceiling") }.count == 1, "the ceiling is measured in the same run")
        #expect(result.targets.map(\.figure) == ["commands/s, log on etcd (best of sweep)",
                                                  "best commands/s as a share of the raw ceiling (same turn size, same concurrency)"])
        #expect(result.targets.allSatisfy { $0.measured > 0 })
    }

    /// Runs one benchmark quick (`QuickBench`).
    private func run(_ name: BenchmarkName) throws -> BenchmarkResult { try QuickBench.run(name) }
}
