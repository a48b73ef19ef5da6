import CamsyncBench
import CamsyncTestSupport
import Foundation
import Testing

/// `fleet` in its quick form against a real coordinator and real node sessions in shard processes:
/// 100 and 1,000 nodes (devices with their displays) join, take commands and heartbeat; every size
/// has its rows and the target checks are there; then 100 nodes in the deployed configuration (CURVE,
/// the journal full). The report is printed; timings are never asserted
/// (this machine is shared).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(10)))
struct FleetBenchmarkTests {
    @Test("fleet: joining, delivery to a group beside the echo floor, copies per batch, heartbeats' cost at 100 and 1,000 nodes")
    func fleetRows() throws {
        let result = try QuickBench.run(.fleet)
        print(ReportFormatter.render(BenchReport(command: "camsync bench --quick fleet", quick: true, machine: BenchSystem.machine(),
                                                 startedAt: "", results: [result])))
        let rows = result.rows
        for nodes in [100, 1000] {
            #expect(rows.contains { $0.scenario.hasPrefix("\(nodes) nodes (\(nodes / 2) devices + \(nodes / 2) displays")
                && ($0.latency?.count ?? 0) == 1 }, "\(nodes) joined")
            #expect(rows.contains { $0.scenario.hasPrefix("\(nodes) nodes: command → the last node of its group applied it")
                && ($0.latency?.count ?? 0) > 0 && $0.floorP50 != nil }, "\(nodes) delivery")
            #expect(rows.contains { $0.benchmark == "floor" && $0.scenario.hasPrefix("\(nodes) nodes joined: raw DEALER/ROUTER echo") })
            #expect(rows.contains { $0.scenario.hasPrefix("\(nodes) nodes, heartbeats only: leader")
                && ($0.throughputPerSecond ?? 0) > 0 && $0.rssMB != nil }, "\(nodes) heartbeats")
            #expect(rows.contains { $0.scenario.hasPrefix("\(nodes) nodes: ") && $0.scenario.contains(" batch copies per batch") })
        }
        #expect(rows.contains { $0.scenario.hasPrefix("1000 nodes, heartbeat 2000 ms, heartbeats only: leader") })
        // The heartbeat spread, as the nodes received them: each node's heartbeat at its slot, so
        // the busiest 100 ms is a fraction of an interval's (all at once would make it the whole).
        let spread = try #require(result.targets.first { $0.figure.hasPrefix("fleet, 1000 nodes, heartbeat 2000 ms: heartbeats and bookmarks") })
        #expect(spread.measured >= 1 && spread.measured < 5, "\(spread.measured) × the average (all in one 100 ms: 20 ×)")
        #expect(rows.contains { $0.scenario.hasPrefix("1000 nodes, heartbeat 2000 ms: command → the last node of its group applied it")
            && ($0.latency?.count ?? 0) > 0 }, "delivery at the longer interval, where the target is judged")
        // The deployed configuration: the coordinator serves CURVE only (its key files), so nodes that
        // joined and followed their group did so on connections under their own keys.
        let deployed = "100 nodes, CURVE, journal full"
        #expect(rows.contains { $0.scenario.hasPrefix("\(deployed) (50 devices + 50 displays") && ($0.latency?.count ?? 0) == 1 })
        #expect(rows.contains { $0.scenario.hasPrefix("\(deployed): command → the last node of its group applied it")
            && ($0.latency?.count ?? 0) > 0 })
        #expect(rows.contains { $0.benchmark == "floor" && $0.scenario.hasPrefix("\(deployed) joined: fdatasync") })
        #expect(rows.allSatisfy { $0.scenario.contains("(load ") })
        #expect(result.targets.map(\.figure) == [
            "fleet, 100 nodes: registration + sync of every node", "fleet, 100 nodes: copies the leader sends per batch",
            "fleet, 1000 nodes: registration + sync of every node", "fleet, 1000 nodes: copies the leader sends per batch",
            "fleet, 1000 nodes, heartbeat 2000 ms: a batch reaches every node of its group, p99",
            "fleet, 1000 nodes, heartbeat 2000 ms: heartbeats and bookmarks in the busiest 100 ms over the average",
            "fleet: a node's CPU per second, 100 → 1000 nodes", "fleet: a node's memory, 100 → 1000 nodes",
            "fleet, 100 nodes, CURVE, journal full: registration + sync of every node",
            "fleet, 100 nodes, CURVE, journal full, heartbeat 1000 ms: a batch reaches every node of its group, p99",
            "fleet, 100 nodes, CURVE, journal full, heartbeat 1000 ms: command → ack, p99",
            "fleet, 100 nodes, CURVE, journal full, heartbeat 1000 ms: heartbeats and bookmarks in the busiest 100 ms over the average",
            "fleet, 100 nodes, CURVE, journal full: descriptors at the leader per node",
            "fleet, 100 nodes, CURVE, journal full: the leader's memory per node (kB)",
        ])
    }
}
