import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// `recovery`: a coordinator with N journaled commands (default 100,000, journal full) is killed
/// with SIGKILL and started again; measured from the new process's spawn until the first snapshot
/// reply arrives (the client's DEALER is connected with a 5 ms reconnect interval before the spawn,
/// its request queued). The state after equals the state before (compared as `ClusterState` values,
/// and the sequence). Two journals: the default `--snapshot-every 10000` (load the newest snapshot,
/// replay the rest, refill the K5 retry window) and no snapshot at all (replay every command);
/// plus an empty journal as the floor (process start).
public enum RecoveryBenchmark {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "recovery")
        let restarts = settings.pick(5, quick: 1)
        let n = settings.recoveryCommands
        let cases: [(String, UInt64?, Int)] = [
            ("empty journal (process start floor)", nil, 0),
            ("\(n) commands, snapshot every 10,000 (default)", nil, n),
            ("\(n) commands, no snapshot (replay all)", 100_000_000, n),
        ]
        var floorP50: Double?
        for (index, (label, snapshotEvery, commands)) in cases.enumerated() {
            let dir = try settings.directory("recovery-\(index)")
            let coordinator = try CoordinatorProcess(executable: settings.executable, directory: dir,
                options: .init(durability: "full", heartbeatMs: 600_000, liveness: 3, snapshotEvery: snapshotEvery,
                               prefix: settings.coordinatorPrefix))
            try coordinator.launch()
            defer { coordinator.stop() }
            let context = try ZMQContext(ioThreads: 1)
            let setup = try ProtocolDealer(context: context, endpoint: coordinator.commandEndpoint)
            defer { setup.close() }
            try BenchWait.serving(setup, coordinator: coordinator)
            if commands > 0 {
                settings.progress("recovery: journaling \(commands) commands (\(label))")
                try journal(commands, through: setup)
            }
            guard let before = try setup.snapshot(timeoutMilliseconds: 10_000) else { throw BenchError("no snapshot before the restart") }
            let beforeState = try before.domainState()
            var recorder = LatencyRecorder()
            var equal = true
            for restart in 0..<restarts {
                settings.progress("recovery: restart \(restart + 1)/\(restarts) (\(label))")
                coordinator.stop(signal: SIGKILL)
                let client = try ProtocolDealer(context: context, endpoint: coordinator.commandEndpoint)
                defer { client.close() }
                try client.sendBytes(Envelope.snapshotRequest(sender: Envelope.adminSender, requestID: client.takeRequestID()).serializedBytes())
                let spawned = Clock.monotonicNanoseconds()
                try coordinator.launch()
                var snapshot: Camsync_V1_Snapshot?
                while snapshot == nil {
                    guard let reply = try client.receive(timeoutMilliseconds: 60_000) else {
                        throw BenchError("coordinator did not serve within 60 s after restart: \(coordinator.logTail())")
                    }
                    if case .snapshot(let s)? = reply.body { snapshot = s }
                }
                recorder.record(from: spawned, to: Clock.monotonicNanoseconds())
                let after = try snapshot!.domainState()
                if after != beforeState || snapshot!.sequence != before.sequence { equal = false }
            }
            let journalMB = Self.journalMegabytes(dir + "/data")
            let row = BenchRow(benchmark: "recovery", scenario: label + String(format: ", journal %.1f MB", journalMB),
                               latency: recorder.summary, rssMB: coordinator.rssMB, floorP50: floorP50)
            result.rows.append(row)
            if commands == 0 { floorP50 = recorder.summary.p50 }
            if commands > 0 {
                result.targets.append(TargetCheck(figure: "recovery, \(label), max of \(restarts)", measured: recorder.summary.max,
                                                  .atMost, 1_000_000, unit: .microseconds, basis: "spawn → first snapshot reply"))
                result.notes.append("\(label): state after restart \(equal ? "equals" : "DIFFERS FROM") the state before "
                    + "(sequence \(before.sequence), \(beforeState.nodes.count) nodes, \(beforeState.apps.count) apps)")
            }
        }
        return result
    }

    /// Registers 50 nodes that claim their cameras, then alternates stop/start sessions until
    /// `count` commands are journaled (pipelined, so group commit keeps it fast).
    static func journal(_ count: Int, through dealer: ProtocolDealer) throws {
        let nodes = 50
        try SimulatedCluster.setUp(dealer: dealer, nodes: 0..<nodes, apps: 3, claim: true)
        var remaining = count - nodes * 4
        var holding = [Bool](repeating: true, count: nodes)
        var cursor = 0
        while remaining > 0 {
            var batch: [(Command, String)] = []
            while batch.count < min(5000, remaining) {
                let id = SimulatedNode.id(cursor)
                batch.append((holding[cursor] ? SimulatedNode.stop(id) : SimulatedNode.start(id), id))
                holding[cursor].toggle()
                cursor = (cursor + 1) % nodes
            }
            try dealer.pipeline(batch, window: 1000)
            remaining -= batch.count
        }
    }

    static func journalMegabytes(_ directory: String) -> Double {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let bytes = files.reduce(0) { sum, name in
            sum + (((try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)"))?[.size] as? Int) ?? 0)
        }
        return Double(bytes) / 1_048_576
    }
}
