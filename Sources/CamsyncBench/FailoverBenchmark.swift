import CamsyncProcessLab
import CamsyncStats
import CamsyncTopology
import CamsyncRuntime
import CamsyncConfig
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// `failover`: a real `camsync node` holding its camera is killed with SIGKILL; measured from the
/// kill to the `declare_node_dead` batch on a SUB socket (that batch carries the release of its
/// holdings, K1), and to its display (a real node of its device group) having applied it (polled every 2 ms on
/// its control socket). Repeated trials (the node restarts and rejoins between them, after a random
/// delay so the kill falls anywhere in the heartbeat period), for several interval × liveness settings.
public enum FailoverBenchmark {
    static let victim = "victim"
    static let observer = "observer"
    static let app = AppID(device: "victim", bundleID: "com.bench.victim")

    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "failover")
        let cases: [(Int64, Int64, Int)] = [(500, 3, settings.pick(20, quick: 3)), (100, 3, settings.pick(30, quick: 4))]
        for (interval, liveness, trials) in cases {
            let (rows, check, notes) = try runOne(settings, interval: interval, liveness: liveness, trials: trials)
            result.rows += rows
            result.targets.append(check)
            result.notes += notes
        }
        result.notes.append("expected kill → dead between (liveness − 1) × interval and liveness × interval: nodes heartbeat "
            + "after one silent interval and the coordinator checks at each node's deadline")
        return result
    }

    static func topology(interval: Int64, liveness: Int64) throws -> Topology {
        func node(_ id: String, _ bundle: String) throws -> Topology.Node {
            Topology.Node(config: try NodeConfig.parseFile(yaml: """
                id: \(id)
                kind: device
                device:
                  os: 17
                  cameras: [ { name: front, position: front } ]
                  apps:
                    - { bundleID: \(bundle), audioSessionCategory: playAndRecord }
                """))
        }
        return Topology(name: "bench-failover",
                        coordinator: .init(commands: BenchSystem.loopbackEndpoint(), events: BenchSystem.loopbackEndpoint(),
                                           durability: "full"),
                        settings: .init(heartbeatMs: interval, liveness: liveness),
                        security: .init(curve: false),
                        // The observer is a display attached to the victim: in its device group, it hears the death.
                        nodes: [try node(victim, "com.bench.victim"), Topology.Node(config: try NodeConfig.parseFile(yaml: """
                            id: \(observer)
                            kind: display
                            display:
                              attachedTo: \(victim)
                              cameras: [ { name: cam, position: external } ]
                            """))])
    }

    static func runOne(_ settings: BenchSettings, interval: Int64, liveness: Int64, trials: Int)
        throws -> ([BenchRow], TargetCheck, [String]) {
        let dir = try settings.directory("failover-\(interval)x\(liveness)")
        let cluster = try LocalCluster(topology: try topology(interval: interval, liveness: liveness), runDirectory: dir,
                                       executable: settings.executable)
        defer { cluster.stop(grace: 3) }
        settings.progress("failover \(interval) ms × \(liveness): starting coordinator and 2 nodes")
        defer { for pid in [cluster.coordinator?.pid] + cluster.nodes.values.map(\.pid) { if let pid { ChildProcesses.unregister(pid) } } }
        func track() {
            for pid in [cluster.coordinator?.pid] + cluster.nodes.values.map(\.pid) { if let pid { ChildProcesses.register(pid) } }
        }
        try cluster.startCoordinator()
        try cluster.startNode(victim)
        try cluster.startNode(observer)
        track()
        try cluster.waitUntilJoined(timeout: 60)
        let context = try ZMQContext(ioThreads: 1)
        let subscriber = try BatchSubscriber(context: context, endpoint: cluster.eventEndpoint, topics: [EventTopic.everyBatch])
        defer { subscriber.close() }
        let observerControl = try cluster.controlClient(observer)
        defer { observerControl.close() }
        var dead = LatencyRecorder(), replica = LatencyRecorder()
        var notes: [String] = []
        for trial in 0..<trials {
            settings.progress("failover \(interval) ms × \(liveness): trial \(trial + 1)/\(trials)")
            if trial > 0 {
                try cluster.startNode(victim)
                track()
                try cluster.waitUntilJoined(timeout: 60)
            }
            let control = try cluster.controlClient(victim)
            for command in [Command.openFullScreen(app, trigger: .user),
                            .configureSession(app, SessionConfiguration(camera: CameraID(host: "victim", name: "front"))),
                            .startSession(app)] {
                _ = try? control.act(command)
            }
            control.close()
            let holder = try cluster.coordinatorClient().snapshot().state.cameraSystems[.builtIn(device: "victim")]?.holder
            if holder != app { notes.append("\(interval)×\(liveness) trial \(trial + 1): the victim's app did not hold its camera") }
            // Let a few heartbeats pass, at a random phase.
            BenchSystem.sleep(milliseconds: Int(interval) + Int.random(in: 0..<Int(interval)))
            try subscriber.drain()
            let killed = Clock.monotonicNanoseconds()
            cluster.signalNode(victim, SIGKILL)
            if let pid = cluster.nodes[victim]?.pid { ChildProcesses.unregister(pid) }
            var batchSequence: UInt64 = 0
            var released = false
            while batchSequence == 0 {
                guard let envelope = try subscriber.next(timeoutMilliseconds: Int(interval * liveness) * 4 + 5000) else {
                    throw BenchError("no declare_node_dead batch for the killed node")
                }
                guard case .eventBatch(let batch)? = envelope.body,
                      case .declareNodeDead(let node)? = try? Command(wire: batch.command), node == "victim" else { continue }
                dead.record(from: killed, to: Clock.monotonicNanoseconds())
                batchSequence = batch.sequence
                released = batch.events.contains { if case .cameraReleased? = $0.kind { true } else { false } }
            }
            if !released && holder == app { notes.append("\(interval)×\(liveness) trial \(trial + 1): the batch released no camera") }
            let replicaDeadline = Clock.monotonicNanoseconds() + 5_000_000_000
            while Clock.monotonicNanoseconds() < replicaDeadline {
                if let status = try? observerControl.status(afterSequence: UInt64.max, timeoutMilliseconds: 1000),
                   status.sequence >= batchSequence {
                    replica.record(from: killed, to: Clock.monotonicNanoseconds())
                    break
                }
                BenchSystem.sleep(milliseconds: 2)
            }
        }
        let budget = Double(interval * liveness) * 1000
        let label = "\(interval) ms × \(liveness)"
        let rows = [
            BenchRow(benchmark: "failover", scenario: "\(label): kill -9 → declare_node_dead batch", latency: dead.summary),
            BenchRow(benchmark: "failover", scenario: "\(label): kill -9 → its display (same device group) applied it", latency: replica.summary),
        ]
        let check = TargetCheck(figure: "failover \(label), max of \(trials) trials", measured: dead.summary.max, .atMost,
                                budget + 100_000, unit: .microseconds, basis: "interval × liveness + 100 ms")
        return (rows, check, notes)
    }
}
