import CamsyncProcessLab
import CamsyncStats
import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ

/// `scale`: does a command cost more as the state grows (docs/PERFORMANCE.md "Targets", cost against state size: rate and
/// claim p50 within 20 % from 10 to 10,000 apps on a device and from 10 to 1,000 nodes)? Through a
/// real coordinator process over ZeroMQ (journal full, liveness off as in `throughput`):
/// - one device grows to 10, 1,000 and 10,000 apps by `install_app` (the rate of the last installs
///   is a row), and at each size its app 0 takes stop/start sessions (1 client × 64 in flight) and
///   claim → grant round trips;
/// - the cluster grows to 10, 100 and 1,000 nodes of 3 apps each, and at each size 8 of them take
///   stop/start sessions (8 clients × 32 in flight) and node 0 claim → grant round trips;
/// - a standby's rebuild from etcd for 10k and 100k batches (`StandbyRebuild`, when etcd is installed);
/// - a restart that replays 100k journaled commands without a snapshot (`RecoveryBenchmark.measure`).
/// Every row says the 1-minute load average when it was measured; the floor is a raw DEALER/ROUTER
/// echo of the request's size (claims), the smallest size's figure (the flatness checks), the
/// standby restart with an almost empty log, the empty journal's restart.
public enum ScaleBenchmark {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "scale")
        let (floor, floorRow) = try Floor.requestEcho(settings, directory: "scale-floor")
        result.rows.append(floorRow)

        let apps = try points(settings, kind: .apps, sizes: [10, 1_000, 10_000], floor: floor)
        let nodes = try points(settings, kind: .nodes, sizes: [10, 100, 1_000], floor: floor)
        for (kind, measured) in [("apps on one device", apps), ("nodes", nodes)] {
            result.rows += measured.flatMap(\.rows)
            guard let first = measured.first, let last = measured.last, first.size != last.size else { continue }
            let span = "\(first.size) → \(last.size) \(kind)"
            result.targets.append(TargetCheck(figure: "commands/s, \(span)", measured: last.rate / first.rate, .atLeast, 0.8,
                unit: .ratio, basis: String(format: "%.0f/s at %d, %.0f/s at %d", first.rate, first.size, last.rate, last.size)))
            result.targets.append(TargetCheck(figure: "claim → grant p50, \(span)", measured: last.claim.p50 / first.claim.p50,
                .atMost, 1.2, unit: .ratio, basis: "\(ReportFormatter.duration(microseconds: first.claim.p50)) at \(first.size), "
                    + "\(ReportFormatter.duration(microseconds: last.claim.p50)) at \(last.size)"))
        }

        if EtcdCluster.isAvailable {
            let standby = try StandbyRebuild.measure(settings, batches: settings.pick([10_000, 100_000], quick: [1_000, 10_000]))
            result.rows += standby.rows
            result.targets += standby.targets
            result.notes += standby.notes
        } else {
            result.notes.append("standby rebuild: skipped (\(EtcdCluster.unavailableMessage))")
        }

        let commands = settings.recoveryCommands
        let empty = try RecoveryBenchmark.measure(settings, directory: "scale-restart-0", label: "restart, empty journal (floor)",
                                                  snapshotEvery: nil, commands: 0, floorP50: nil)
        let replay = try RecoveryBenchmark.measure(settings, directory: "scale-restart-1",
                                                   label: "restart, \(commands) journaled commands, no snapshot (replay all)",
                                                   snapshotEvery: RecoveryBenchmark.noSnapshot, commands: commands,
                                                   floorP50: empty.row.latency?.p50)
        result.rows += [empty.row, replay.row]
        result.targets += replay.target.map { [$0] } ?? []
        result.notes += replay.note.map { [$0] } ?? []
        result.notes.append("rate rows: stop/start sessions, send → ack; claim rows: start_session → the later of its ack and "
            + "the camera_granted batch; install_app rows: the rate of the last installs before the size was reached")
        return result
    }

    enum Kind { case apps, nodes }

    struct Point {
        var size: Int
        var rate: Double
        var claim: LatencySummary
        var rows: [BenchRow]
    }

    /// One coordinator, grown through `sizes` in turn and measured at each.
    static func points(_ settings: BenchSettings, kind: Kind, sizes: [Int], floor: LatencySummary) throws -> [Point] {
        let name = kind == .apps ? "apps" : "nodes"
        let dir = try settings.directory("scale-\(name)")
        let (coordinator, setup) = try CoordinatorProcess.launchServing(settings, directory: dir)
        defer { setup.close(); coordinator.stop() }
        let context = setup.socket.context
        let device = SimulatedNode.id(0)
        var current = 0
        var points: [Point] = []
        for size in sizes {
            var rows: [BenchRow] = []
            switch kind {
            case .apps:
                if current == 0 {
                    try SimulatedCluster.setUp(dealer: setup, nodes: 0..<1, apps: 10, claim: true)
                    current = 10
                }
                if size > current {
                    settings.progress("scale: installing apps \(current) → \(size) on \(device)")
                    let load = BenchSystem.loadAverage()
                    let timedFrom = max(current, size - 1_000)
                    try setup.pipeline(installs(current..<timedFrom, on: device))
                    let started = Clock.monotonicNanoseconds()
                    try setup.pipeline(installs(timedFrom..<size, on: device))
                    let seconds = Double(Clock.monotonicNanoseconds() - started) / 1e9
                    rows.append(BenchRow(benchmark: "scale",
                        scenario: "install_app to one device, apps \(timedFrom) → \(size) (load \(StandbyRebuild.format(load)))",
                        throughputPerSecond: Double(size - timedFrom) / seconds))
                    current = size
                }
            case .nodes:
                if size > current {
                    settings.progress("scale: registering nodes \(current) → \(size), each claiming its camera")
                    try SimulatedCluster.setUp(dealer: setup, nodes: current..<size, apps: 3, claim: true)
                    current = size
                }
            }
            let label = kind == .apps ? "one device with \(size) apps" : "\(size) nodes"
            let clients = kind == .apps ? 1 : min(8, size)
            let window = kind == .apps ? 64 : 32
            settings.progress("scale: \(label): \(clients) client(s) × \(window) stop/start sessions")
            var load = BenchSystem.loadAverage()
            let point = try ThroughputBenchmark.measure(context: context, endpoint: coordinator.commandEndpoint, clients: clients,
                                                        window: window, warmupSeconds: settings.pick(0.5, quick: 0.2),
                                                        seconds: settings.pick(3.0, quick: 0.5))
            rows.append(BenchRow(benchmark: "scale",
                scenario: "commands/s, \(label), \(clients) client\(clients == 1 ? "" : "s") × \(window) (load \(StandbyRebuild.format(load)))",
                latency: point.latency, throughputPerSecond: point.commandsPerSecond, rssMB: coordinator.rssMB))
            load = BenchSystem.loadAverage()
            let registered = kind == .apps ? [device] : (0..<size).map(SimulatedNode.id)
            let claims = try ClaimRoundTrips.measure(settings, label: "scale: \(label)", commandEndpoint: coordinator.commandEndpoint,
                eventEndpoint: coordinator.eventEndpoint, count: settings.pick(3_000, quick: 300), warmup: settings.pick(300, quick: 50),
                registered: registered, waitUntilServing: { _ in })
            rows.append(BenchRow(benchmark: "scale", scenario: "claim → ack + grant, \(label) (load \(StandbyRebuild.format(load)))",
                                 latency: claims.claim, rssMB: coordinator.rssMB, floorP50: floor.p50))
            // The round trips end with the camera released; the next rate point starts with a stop.
            try setup.pipeline([(SimulatedNode.start(device), device)])
            points.append(Point(size: size, rate: point.commandsPerSecond, claim: claims.claim, rows: rows))
        }
        return points
    }

    /// `install_app` of apps `com.bench.extra<k>` for k in `range` on `device`.
    static func installs(_ range: Range<Int>, on device: String) -> [(Command, String)] {
        range.map { k in
            (.installApp(device: NodeID(device), AppSpec(bundleID: "com.bench.extra\(k)", audioSessionCategory: .playAndRecord)), device)
        }
    }
}
