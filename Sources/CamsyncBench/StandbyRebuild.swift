import CamsyncStats
import CamsyncRuntime
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// `scale`'s standby rows: how long a standby takes to rebuild its state from etcd (SPEC K6) when
/// the log holds N batches and no snapshot. Two coordinators on a real 3-member etcd (as the HA
/// benchmarks start it), `--snapshot-every` beyond the run; 50 simulated nodes are registered
/// through the leader, which then takes stop/start sessions until the log holds N batches. The
/// standby is killed (SIGKILL) and started again; measured from its spawn until it says it is a
/// standby at the leader's sequence (`coordinator_status_request`, polled every few ms). The floor
/// is the same restart with only the setup in the log (process start, etcd session, election watch).
enum StandbyRebuild {
    static func measure(_ settings: BenchSettings, batches sizes: [Int]) throws -> (rows: [BenchRow], targets: [TargetCheck], notes: [String]) {
        var rows: [BenchRow] = [], targets: [TargetCheck] = [], notes: [String] = []
        let times = settings.pick(3, quick: 1)
        let cluster = try HACoordinators(settings, directory: try settings.directory("scale-standby"), count: 2,
                                         heartbeatMs: 600_000, suspicionMs: 5_000, snapshotEvery: RecoveryBenchmark.noSnapshot)
        defer { cluster.stop() }
        let leader = try cluster.waitForLeader()
        let standby = 1 - leader
        try cluster.waitUntilAnswering(standby)
        let context = try ZMQContext(ioThreads: 1)
        let dealer = try ProtocolDealer(context: context, endpoint: cluster.coordinators[leader].commandEndpoint)
        defer { dealer.close() }
        let nodes = 50
        var sequence = try SimulatedCluster.setUp(dealer: dealer, nodes: 0..<nodes, apps: 3, claim: true)

        let load = BenchSystem.loadAverage()
        let floor = try restarts(of: standby, in: cluster, until: sequence, times: times, settings: settings)
        rows.append(BenchRow(benchmark: "floor", scenario: "standby restart, \(sequence) batches in the log (load \(format(load)))",
                             latency: floor, floorP50: floor.p50))
        for size in sizes {
            settings.progress("scale: the leader logs up to \(size) batches on etcd")
            if size > Int(sequence) { sequence = try SimulatedCluster.alternate(size - Int(sequence), nodes: nodes, through: dealer) }
            let load = BenchSystem.loadAverage()
            let budget = 2_000_000 * Double(size) / 100_000
            let figure = "standby rebuild, \(size) batches (max of \(times))"
            let rebuild: LatencySummary
            do {
                rebuild = try restarts(of: standby, in: cluster, until: sequence, times: times, settings: settings)
            } catch {
                // A standby that cannot rebuild at all is a finding of this row, not the end of the benchmark.
                targets.append(TargetCheck(figure: figure, measured: 60_000_000, .atMost, budget, unit: .microseconds,
                                           basis: "did not rebuild within 60 s"))
                notes.append("standby rebuild, \(size) batches: \(String(describing: error).split(separator: "\n").prefix(2).joined(separator: " / "))")
                break
            }
            rows.append(BenchRow(benchmark: "scale",
                                 scenario: "standby rebuild from etcd, \(sequence) batches, no snapshot (load \(format(load)))",
                                 latency: rebuild, floorP50: floor.p50))
            // The target: 100k batches in ≤ 2 s; other sizes pro rata.
            targets.append(TargetCheck(figure: figure, measured: rebuild.max,
                                       .atMost, budget, unit: .microseconds,
                                       basis: size == 100_000 ? "100k batches ≤ 2 s" : "2 s per 100k batches, pro rata"))
        }
        notes.append("standby rebuild: spawn of a killed standby → it answers as a standby at the leader's sequence; the log's "
            + "turns are what the leader wrote under pipelined load (several batches per etcd key)")
        return (rows, targets, notes)
    }

    /// Kills the standby and starts it again `times` times; spawn → standby at `sequence`.
    private static func restarts(of standby: Int, in cluster: HACoordinators, until sequence: UInt64, times: Int,
                                 settings: BenchSettings) throws -> LatencySummary {
        var recorder = LatencyRecorder()
        for attempt in 0..<times {
            settings.progress("scale: standby restart \(attempt + 1)/\(times) with \(sequence) batches on etcd")
            _ = cluster.kill(standby)
            let spawned = Clock.monotonicNanoseconds()
            try cluster.restart(standby)
            let deadline = spawned + 60_000_000_000
            while true {
                if let status = try cluster.status(standby, timeoutMilliseconds: 20),
                   status.role == "standby", status.appliedSequence >= sequence { break }
                guard Clock.monotonicNanoseconds() < deadline else {
                    let log = cluster.coordinators[standby].logTail().split(separator: "\n").last.map(String.init) ?? ""
                    throw BenchError("the standby did not rebuild \(sequence) batches within 60 s; its log's last line: \(log)")
                }
            }
            recorder.record(from: spawned, to: Clock.monotonicNanoseconds())
        }
        return recorder.summary
    }

    static func format(_ load: Double) -> String { String(format: "%.2f", load) }
}
