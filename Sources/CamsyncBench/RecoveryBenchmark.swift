import CamsyncStats
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
        let n = settings.recoveryCommands
        let cases: [(String, UInt64?, Int)] = [
            ("empty journal (process start floor)", nil, 0),
            ("\(n) commands, snapshot every 10,000 (default)", nil, n),
            ("\(n) commands, no snapshot (replay all)", Self.noSnapshot, n),
        ]
        var floorP50: Double?
        for (index, (label, snapshotEvery, commands)) in cases.enumerated() {
            let restart = try measure(settings, directory: "recovery-\(index)", label: label, snapshotEvery: snapshotEvery,
                                      commands: commands, floorP50: floorP50)
            result.rows.append(restart.row)
            if commands == 0 { floorP50 = restart.row.latency?.p50 }
            result.targets += restart.target.map { [$0] } ?? []
            result.notes += restart.note.map { [$0] } ?? []
        }
        return result
    }

    /// `--snapshot-every` for a journal that is never snapshotted: a restart replays every command.
    static let noSnapshot: UInt64 = 100_000_000

    /// One case: a coordinator with `commands` journaled (none: the process start floor) is killed
    /// with SIGKILL and started again, `settings.pick(5, quick: 1)` times; the row (spawn → first
    /// snapshot reply), the ≤ 1 s target check and whether the state came back equal (not for 0 commands).
    static func measure(_ settings: BenchSettings, directory name: String, label: String, snapshotEvery: UInt64?,
                        commands: Int, floorP50: Double?) throws -> (row: BenchRow, target: TargetCheck?, note: String?) {
        let restarts = settings.pick(5, quick: 1)
        let dir = try settings.directory(name)
        let (coordinator, setup) = try CoordinatorProcess.launchServing(settings, directory: dir, snapshotEvery: snapshotEvery)
        defer { setup.close(); coordinator.stop() }
        let context = setup.socket.context
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
        guard commands > 0 else { return (row, nil, nil) }
        let target = TargetCheck(figure: "recovery, \(label), max of \(restarts)", measured: recorder.summary.max,
                                 .atMost, 1_000_000, unit: .microseconds, basis: "spawn → first snapshot reply")
        let note = "\(label): state after restart \(equal ? "equals" : "DIFFERS FROM") the state before "
            + "(sequence \(before.sequence), \(beforeState.nodes.count) nodes, \(beforeState.apps.count) apps)"
        return (row, target, note)
    }

    /// Registers 50 nodes that claim their cameras, then alternates stop/start sessions until
    /// `count` commands are journaled (pipelined, so group commit keeps it fast).
    static func journal(_ count: Int, through dealer: ProtocolDealer) throws {
        let nodes = 50
        try SimulatedCluster.setUp(dealer: dealer, nodes: 0..<nodes, apps: 3, claim: true)
        try SimulatedCluster.alternate(count - nodes * 4, nodes: nodes, through: dealer)
    }

    static func journalMegabytes(_ directory: String) -> Double {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let bytes = files.reduce(0) { sum, name in
            sum + (((try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)"))?[.size] as? Int) ?? 0)
        }
        return Double(bytes) / 1_048_576
    }
}
