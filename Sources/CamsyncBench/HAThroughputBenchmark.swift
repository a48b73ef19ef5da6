import CamsyncProcessLab
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncRuntime
import CamsyncWire
import Foundation
import ZeroMQ
import CamsyncCoordinatorCore

/// `ha-throughput`: commands/s through the HA leader (SPEC K6), whose every turn is one etcd txn
/// (group commit: a turn takes up to 1,024 requests). Many clients keep windows of requests in flight
/// so that turns are large — the same load as `throughput` (`ThroughputBenchmark.measure`), against
/// the leader of 3 coordinators on 3 loopback etcd members. The etcd revision before and after each
/// point gives the number of txns, hence the mean turn size. Target ≥ 20,000 commands/s.
public enum HAThroughputBenchmark {
    /// The mean size of one command's batch in the log under `prefix` (over its first 32 turns: a read stays under gRPC's 4 MiB).
    static func meanBatchBytes(_ client: EtcdClient, prefix: String) async throws -> Double {
        let range = try await client.range(prefix: "\(prefix)/log/", limit: 32)
        var bytes = 0
        var batches = 0
        for keyValue in range.keyValues {
            bytes += keyValue.value.count
            batches += try LoggedBatch.encodedBatches(ofTurn: keyValue.value).count
        }
        return batches > 0 ? Double(bytes) / Double(batches) : 0
    }

    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "ha-throughput")
        let sweep = settings.pick([8, 32, 64, 128], quick: [64])
        let window = 32
        let seconds = settings.pick(3.0, quick: 0.7)
        let warmup = settings.pick(0.5, quick: 0.3)
        let dir = try settings.directory("ha-throughput")
        // Steady state: a suspicion window of 2 s, so that a loaded machine does not fail over mid-run (ha-failover measures failover).
        let cluster = try HACoordinators(settings, directory: dir, count: 3, heartbeatMs: 600_000, suspicionMs: 2_000)
        defer { cluster.stop() }
        let leader = try cluster.waitForLeader()
        let coordinator = cluster.coordinators[leader]
        let context = try ZMQContext(ioThreads: 1)
        let setup = try ProtocolDealer(context: context, endpoint: coordinator.commandEndpoint)
        defer { setup.close() }
        let maxClients = sweep.max()!
        settings.progress("ha-throughput: c\(leader) leads; registering \(maxClients) simulated nodes")
        try SimulatedCluster.setUp(dealer: setup, nodes: 0..<maxClients, apps: 3, claim: true)
        let etcd = cluster.etcd
        let revision: @Sendable () throws -> Int64 = {
            try Blocking.run { try await etcd.withClient { try await $0.currentRevision() } }
        }
        var best = 0.0
        var bestPoint: (commandsPerSecond: Double, commandsPerTxn: Double) = (0, 0)
        for m in sweep {
            settings.progress("ha-throughput: \(m) clients × window \(window), \(seconds) s")
            var cpu: (process: Double, busiestThread: Double) = (0, 0)
            let before = try revision()
            let others = cluster.coordinators.indices.filter { $0 != leader }.map { cluster.coordinators[$0].pid }
                + cluster.etcd.members.indices.compactMap { cluster.etcd.pid($0) }
            let othersBefore = others.map { BenchSystem.threadCPUSeconds(pid: $0) }
            let started = Clock.monotonicNanoseconds()
            let point = try ThroughputBenchmark.measure(context: context, endpoint: coordinator.commandEndpoint, clients: m,
                                                        window: window, warmupSeconds: warmup, seconds: seconds,
                                                        pid: coordinator.pid) { cpu = $0 }
            let elapsed = Double(Clock.monotonicNanoseconds() - started) / 1e9
            let othersCPU = zip(others, othersBefore).map { pid, before in
                BenchSystem.cpuShare(before: before, after: BenchSystem.threadCPUSeconds(pid: pid), seconds: elapsed).process
            }
            let txns = try revision() - before
            if point.commandsPerSecond > best, txns > 0 {
                bestPoint = (point.commandsPerSecond, point.commandsPerSecond * elapsed / Double(txns))
            }
            best = max(best, point.commandsPerSecond)
            result.rows.append(BenchRow(benchmark: "ha-throughput",
                scenario: "log on etcd, \(m) clients × \(window) in flight", latency: point.latency,
                throughputPerSecond: point.commandsPerSecond, rssMB: coordinator.rssMB))
            result.notes.append(String(format: "%d clients: the leader used %.0f%% of a core (busiest thread %.0f%%); %lld etcd "
                + "writes in %.1f s, ≈ %.0f commands per txn (the measured rate × the whole point's time / revisions)",
                m, cpu.process * 100, cpu.busiestThread * 100, txns, elapsed,
                txns > 0 ? point.commandsPerSecond * elapsed / Double(txns) : 0))
            result.notes.append(String(format: "%d clients, CPU over the whole point in %% of a core: standbys %@, etcd members %@",
                m, othersCPU.prefix(cluster.coordinators.count - 1).map { String(format: "%.0f", $0 * 100) }.joined(separator: " / "),
                othersCPU.dropFirst(cluster.coordinators.count - 1).map { String(format: "%.0f", $0 * 100) }.joined(separator: " / ")))
            if point.errors > 0 { result.notes.append("\(m) clients: \(point.errors) error replies") }
        }
        result.targets.append(TargetCheck(figure: "commands/s, log on etcd (best of sweep)", measured: best, .atLeast, 25_000,
                                          unit: .perSecond, basis: "HA log target: every turn an etcd txn"))
        // The ceiling of the same etcd in the same run: conditional puts of the size of the leader's
        // turns, as many in flight as the leader keeps (--commits-in-flight), from this process's client.
        let prefix = cluster.prefix
        let batchBytes = try Blocking.run { try await etcd.withClient { try await meanBatchBytes($0, prefix: prefix) } }
        let turnBytes = Int(batchBytes * bestPoint.commandsPerTxn)
        let inFlight = CoordinatorSettings.defaults.commitsInFlight
        let (putsPerSecond, timedOut) = try Blocking.run {
            try await etcd.withClient { try await EtcdRoundTrip.pipelinedPuts(client: $0, valueBytes: turnBytes, inFlight: inFlight,
                                                                               seconds: seconds) }
        }
        let ceiling = putsPerSecond * bestPoint.commandsPerTxn
        result.rows.append(BenchRow(benchmark: "ha-throughput", scenario: String(format:
            "raw ceiling: %d conditional puts of %d B in flight (the leader's mean turn), × %.0f commands per turn",
            inFlight, turnBytes, bestPoint.commandsPerTxn), latency: nil, throughputPerSecond: ceiling, rssMB: nil))
        result.notes.append(String(format: "raw ceiling: %.0f conditional puts/s of %d B with %d in flight; the best point's turns held %.0f commands",
                                   putsPerSecond, turnBytes, inFlight, bestPoint.commandsPerTxn))
        if timedOut > 0 { result.notes.append("raw ceiling: \(timedOut) puts got no answer within the request deadline (not counted)") }
        result.targets.append(TargetCheck(figure: "best commands/s as a share of the raw ceiling (same turn size, same concurrency)",
                                          measured: ceiling > 0 ? bestPoint.commandsPerSecond / ceiling : 0, .atLeast, 0.8,
                                          unit: .ratio, basis: "raw conditional puts, same size, same run"))
        result.notes.append("latency columns are send → ack under load (queueing behind the window included)")
        return result
    }
}
