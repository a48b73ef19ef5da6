import CamsyncCoordinator
import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
import CamsyncCoordinatorCore
#endif

/// `memory`: the coordinator's VmRSS (`/proc/PID/status`) empty, after registering N nodes with
/// A apps each (default 1,000 × 10 = 10,000 apps, each node's app 0 claiming its camera), and after
/// serving 10 full snapshots of that state (what N joining nodes would ask for). VmHWM is the peak.
/// `--heartbeat-ms 600000`: liveness is not under test.
public enum MemoryBenchmark {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "memory")
        let dir = try settings.directory("memory")
        let (coordinator, setup) = try CoordinatorProcess.launchServing(settings, directory: dir)
        defer { setup.close(); coordinator.stop() }
        let empty = coordinator.rssMB ?? 0
        let n = settings.memoryNodes, a = settings.memoryAppsPerNode
        settings.progress("memory: registering \(n) nodes × \(a) apps")
        let started = Clock.monotonicNanoseconds()
        try SimulatedCluster.setUp(dealer: setup, nodes: 0..<n, apps: a, claim: true)
        let setupSeconds = Double(Clock.monotonicNanoseconds() - started) / 1e9
        let registered = coordinator.rssMB ?? 0
        var snapshotBytes = 0
        for _ in 0..<10 {
            guard let snapshot = try setup.snapshot(timeoutMilliseconds: 30_000) else { throw BenchError("no snapshot") }
            snapshotBytes = (try? snapshot.serializedBytes() as [UInt8])?.count ?? 0
        }
        let afterSnapshots = coordinator.rssMB ?? 0
        let peak = BenchSystem.procStatusKilobytes(pid: coordinator.pid, field: "VmHWM").map { Double($0) / 1024 } ?? 0
        result.rows = [
            BenchRow(benchmark: "memory", scenario: "coordinator empty", rssMB: empty),
            BenchRow(benchmark: "memory", scenario: "\(n) nodes / \(n * a) apps registered",
                     throughputPerSecond: Double(n * 4) / setupSeconds, rssMB: registered),
            BenchRow(benchmark: "memory", scenario: "after 10 snapshots (\(snapshotBytes / 1024) KiB each)", rssMB: afterSnapshots),
            BenchRow(benchmark: "memory", scenario: "peak (VmHWM)", rssMB: peak),
        ]
        result.targets.append(TargetCheck(figure: "coordinator RSS, \(n) nodes / \(n * a) apps", measured: max(registered, afterSnapshots),
                                          .atMost, 100, unit: .megabytes, basis: "VmRSS after registration and snapshots"))
        result.notes.append("the rate column of the registration row is setup commands/s (register + 3 claim commands per node, journal full)")
        return result
    }
}

/// Optional micro-benchmarks, in this process: the policy engine in memory, and envelope encode/decode.
public enum MicroBenchmarks {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "micro")
        for (nodes, apps) in settings.pick([(50, 3), (1000, 10)], quick: [(50, 3), (200, 10)]) {
            var engine = PolicyEngine()
            var time: Int64 = 1_700_000_000_000
            for i in 0..<nodes {
                let id = SimulatedNode.id(i)
                for command in [.registerNode(SimulatedNode.registration(id, apps: apps))] + SimulatedNode.claim(id) {
                    time += 1
                    guard case .success = engine.apply(command, at: Instant(milliseconds: time)) else { throw BenchError("engine setup refused") }
                }
            }
            let count = settings.pick(nodes > 100 ? 20_000 : 200_000, quick: nodes > 100 ? 4000 : 40_000)
            var holding = [Bool](repeating: true, count: nodes)
            let start = Clock.monotonicNanoseconds()
            for k in 0..<count {
                let i = k % nodes, id = SimulatedNode.id(i)
                time += 1
                _ = engine.apply(holding[i] ? SimulatedNode.stop(id) : SimulatedNode.start(id), at: Instant(milliseconds: time))
                holding[i].toggle()
            }
            let seconds = Double(Clock.monotonicNanoseconds() - start) / 1e9
            result.rows.append(BenchRow(benchmark: "micro",
                scenario: "engine apply start/stop_session, \(nodes) nodes × \(apps) apps, in memory",
                throughputPerSecond: Double(count) / seconds))
        }
        let count = settings.pick(200_000, quick: 40_000)
        var start: UInt64
        var seconds: Double

        let envelope = Envelope.request(SimulatedNode.start(SimulatedNode.id(0)), sender: SimulatedNode.id(0), requestID: 1 << 40)
        var bytes = envelope.serializedBytes()
        var sink = 0
        start = Clock.monotonicNanoseconds()
        for k in 0..<count {
            var e = envelope
            e.requestID = UInt64(k)
            bytes = e.serializedBytes()
            sink &+= bytes.count
        }
        seconds = Double(Clock.monotonicNanoseconds() - start) / 1e9
        result.rows.append(BenchRow(benchmark: "micro", scenario: "encode start_session envelope (\(bytes.count) B)",
                                    throughputPerSecond: Double(count) / seconds))
        start = Clock.monotonicNanoseconds()
        for _ in 0..<count {
            let decoded = try Envelope.decode(bytes)
            let command = try decoded.domainCommand()
            if case .startSession = command { sink &+= 1 }
        }
        seconds = Double(Clock.monotonicNanoseconds() - start) / 1e9
        result.rows.append(BenchRow(benchmark: "micro", scenario: "decode + map start_session envelope",
                                    throughputPerSecond: Double(count) / seconds))
        if sink == 42 { result.notes.append("") }

        let core = try CoreMicroBenchmark.run(commands: settings.pick(400_000, quick: 64_000))
        result.rows.append(BenchRow(benchmark: "micro",
            scenario: "coordinator core: 64 nodes' start/stop frames decided, committed, released, sent as bytes",
            throughputPerSecond: core.loopCommandsPerSecond))
        result.rows.append(BenchRow(benchmark: "micro", scenario: "coordinator core: the same turns' batches encoded (the writer's part)",
            throughputPerSecond: core.encodingCommandsPerSecond))
        result.rows.append(BenchRow(benchmark: "micro",
            scenario: "coordinator core: a standby follows the same batches (decoded from their bytes, applied)",
            throughputPerSecond: core.followedCommandsPerSecond))

        // The journal's own cost, without the disk's: SQLite's `synchronous=NORMAL` in WAL mode does not
        // sync a commit, so these rows are GRDB's and SQLite's work per group commit and per entry.
        for perCommit in [1, 64] {
            let directory = try settings.directory("micro-journal-\(perCommit)")
            let journal = try Journal(directory: directory, durability: .normal)
            let entry = JournalEntry(sequence: 0, term: 1, timeMilliseconds: 1_700_000_000_000, node: SimulatedNode.id(0),
                                     requestID: 1, command: [UInt8](repeating: 1, count: 40), batch: [UInt8](repeating: 2, count: 180))
            let commits = settings.pick(perCommit == 1 ? 40_000 : 1_000, quick: perCommit == 1 ? 8_000 : 200)
            var sequence: UInt64 = 0
            start = Clock.monotonicNanoseconds()
            for _ in 0..<commits {
                let entries = (0..<perCommit).map { _ in
                    var e = entry
                    sequence += 1
                    e.sequence = sequence
                    return e
                }
                try journal.append(entries)
            }
            seconds = Double(Clock.monotonicNanoseconds() - start) / 1e9
            result.rows.append(BenchRow(benchmark: "micro",
                scenario: "journal append, \(perCommit) × 220 B entr\(perCommit == 1 ? "y" : "ies") per commit, not synced: entries/s",
                throughputPerSecond: Double(commits * perCommit) / seconds))
        }

        // The disk under the journal: 4 KiB append + fdatasync (what each group commit waits for at least once).
        let syncs = try DiskSync.measure(directory: try settings.directory("micro"), count: settings.pick(500, quick: 100))
        result.rows.append(BenchRow(benchmark: "micro", scenario: "disk: 4 KiB append + fdatasync (work dir)", latency: syncs))
        return result
    }
}
