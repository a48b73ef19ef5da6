import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing

/// `scale` in its quick form against a real coordinator (and a real etcd when installed): every size
/// has its rate and claim rows, the flatness and rebuild checks are printed. Timings are never
/// asserted (this machine is shared).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(10)))
struct ScaleBenchmarkTests {
    @Test("scale: rate and claim → grant at 10, 1,000, 10,000 apps on a device and 10, 100, 1,000 nodes; standby rebuild; replay-all restart")
    func scaleRows() throws {
        let result = try QuickBench.run(.scale)
        let rows = result.rows.filter { $0.benchmark == "scale" }
        for size in ["one device with 10 apps", "one device with 1000 apps", "one device with 10000 apps",
                     "10 nodes", "100 nodes", "1000 nodes"] {
            #expect(rows.contains { $0.scenario.hasPrefix("commands/s, \(size),") && ($0.throughputPerSecond ?? 0) > 0 }, "\(size)")
            #expect(rows.contains { $0.scenario.hasPrefix("claim → ack + grant, \(size) (load")
                && ($0.latency?.count ?? 0) > 0 && $0.floorP50 != nil }, "\(size)")
        }
        #expect(rows.filter { $0.scenario.hasPrefix("install_app to one device") }.count == 2)
        #expect(result.rows.allSatisfy { $0.benchmark != "scale" || $0.scenario.contains("(load ") })
        var figures = ["commands/s, 10 → 10000 apps on one device", "claim → grant p50, 10 → 10000 apps on one device",
                       "commands/s, 10 → 1000 nodes", "claim → grant p50, 10 → 1000 nodes"]
        if EtcdCluster.isAvailable {
            #expect(rows.filter { $0.scenario.hasPrefix("standby rebuild from etcd") && $0.floorP50 != nil }.count == 2)
            figures += ["standby rebuild, 1000 batches (max of 1)", "standby rebuild, 10000 batches (max of 1)"]
        }
        figures.append("recovery, restart, 20000 journaled commands, no snapshot (replay all), max of 1")
        #expect(result.targets.map(\.figure) == figures)
        #expect(result.notes.contains { $0.contains("state after restart equals the state before") })
    }
}
