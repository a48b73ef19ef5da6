public import CamsyncStats
import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ

/// `throughput`: sustained commands/s through one coordinator with the journal on (group commit).
/// M clients, each a DEALER speaking as its own registered simulated node, keep a window of
/// `start_session`/`stop_session` requests in flight (one load thread polls them all); M is swept
/// to find where the coordinator saturates. Liveness is not under test: the coordinator runs with
/// `--heartbeat-ms 600000` so idle clients between sweep points are not declared dead.
public enum ThroughputBenchmark {
    public struct Point: Sendable {
        public var clients: Int
        public var window: Int
        public var commandsPerSecond: Double
        public var latency: LatencySummary
        public var errors: Int
    }

    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "throughput")
        let sweep = settings.pick([1, 2, 4, 8, 16, 32, 64], quick: [1, 8, 64])
        let window = 32
        let seconds = settings.pick(3.0, quick: 0.7)
        let (floor, floorRow) = try Floor.requestEcho(settings, directory: "throughput-floor")
        result.rows.append(floorRow)
        var best: Point?
        var points: [Point] = []
        for durability in ["full", "off"] {
            let clients = durability == "full" ? sweep : [sweep.last!]
            let dir = try settings.directory("throughput-\(durability)")
            let (coordinator, setup) = try CoordinatorProcess.launchServing(settings, directory: dir, durability: durability)
            defer { setup.close(); coordinator.stop() }
            let context = setup.socket.context
            let maxClients = clients.max()!
            settings.progress("throughput(journal \(durability)): registering \(maxClients) simulated nodes")
            try SimulatedCluster.setUp(dealer: setup, nodes: 0..<maxClients, apps: 3, claim: true)
            for m in clients {
                settings.progress("throughput(journal \(durability)): \(m) clients × window \(window), \(seconds) s")
                var cpu: (process: Double, busiestThread: Double) = (0, 0)
                let point = try measure(context: context, endpoint: coordinator.commandEndpoint, clients: m, window: window,
                                        warmupSeconds: settings.pick(0.5, quick: 0.3), seconds: seconds,
                                        pid: coordinator.pid) { cpu = $0 }
                result.rows.append(BenchRow(benchmark: "throughput",
                    scenario: "journal \(durability), \(m) client\(m == 1 ? "" : "s") × \(window) in flight",
                    latency: point.latency, throughputPerSecond: point.commandsPerSecond, rssMB: coordinator.rssMB,
                    floorP50: floor.p50))
                // CPU per command: steadier than the rate on a shared machine, whose other load moves the
                // rate between runs more than a change of the coordinator does (docs/PERFORMANCE.md).
                let rate = max(point.commandsPerSecond, 1)
                result.notes.append(String(format: "journal %@, %d clients: coordinator used %.0f%% of a core (busiest thread %.0f%%): %.1f µs of CPU per command (busiest thread %.1f µs)",
                                           durability, m, cpu.process * 100, cpu.busiestThread * 100,
                                           cpu.process * 1e6 / rate, cpu.busiestThread * 1e6 / rate))
                if point.errors > 0 { result.notes.append("journal \(durability), \(m) clients: \(point.errors) error replies") }
                if durability == "full" {
                    points.append(point)
                    if best == nil || point.commandsPerSecond > best!.commandsPerSecond { best = point }
                }
            }
        }
        if let best {
            let saturation = points.first { $0.commandsPerSecond >= 0.95 * best.commandsPerSecond }!
            result.notes.append(String(format: "journal full saturates at %d clients × %d in flight (≥ 95%% of the best, %.0f commands/s at %d clients)",
                                       saturation.clients, window, best.commandsPerSecond, best.clients))
            result.targets.append(TargetCheck(figure: "commands/s, journal full (best of sweep)", measured: best.commandsPerSecond,
                                              .atLeast, 50_000, unit: .perSecond, basis: "\(best.clients) clients × \(window)"))
        }
        result.notes.append("latency columns of throughput rows are send → ack under load (queueing included)")
        return result
    }

    /// One sweep point: `clients` DEALERs, each speaking as `sim-<i>`, `window` requests in flight each.
    static func measure(context: ZMQContext, endpoint: String, clients: Int, window: Int,
                        warmupSeconds: Double, seconds: Double, pid: Int32 = 0,
                        cpu: ((process: Double, busiestThread: Double)) -> Void = { _ in }) throws -> Point {
        final class Client {
            let dealer: ProtocolDealer
            let node: String
            var starting = true           // app 0 holds its camera after setup: the first command is a stop
            var sentAt: [UInt64] = []     // FIFO of send instants (one connection: replies come in order)
            var head = 0
            init(_ dealer: ProtocolDealer, _ node: String) { self.dealer = dealer; self.node = node }
            var outstanding: Int { sentAt.count - head }
            func sendNext() throws {
                starting.toggle()
                try dealer.send(starting ? SimulatedNode.start(node) : SimulatedNode.stop(node), as: node)
                sentAt.append(Clock.monotonicNanoseconds())
            }
            func popSent() -> UInt64 {
                let t = sentAt[head]
                head += 1
                if head > 4096 { sentAt.removeFirst(head); head = 0 }
                return t
            }
        }
        let list = try (0..<clients).map { Client(try ProtocolDealer(context: context, endpoint: endpoint), SimulatedNode.id($0)) }
        defer { for c in list { c.dealer.close() } }
        let poller = Poller()
        for c in list { poller.register(c.dealer.socket, for: .readable) }
        for c in list { for _ in 0..<window { try c.sendNext() } }
        let start = Clock.monotonicNanoseconds()
        let measureFrom = start + UInt64(warmupSeconds * 1e9)
        let measureTo = measureFrom + UInt64(seconds * 1e9)
        var recorder = LatencyRecorder()
        var completed = 0, errors = 0
        var sending = true
        var cpuBefore: [Int32: Double]?
        while true {
            if cpuBefore == nil && Clock.monotonicNanoseconds() >= measureFrom { cpuBefore = BenchSystem.threadCPUSeconds(pid: pid) }

            let ready = try poller.poll(timeoutMs: 1000)
            let now0 = Clock.monotonicNanoseconds()
            if now0 >= measureTo && sending {
                sending = false
                if let before = cpuBefore {
                    cpu(BenchSystem.cpuShare(before: before, after: BenchSystem.threadCPUSeconds(pid: pid),
                                             seconds: Double(now0 - measureFrom) / 1e9))
                }
            }
            if ready.isEmpty && list.allSatisfy({ $0.outstanding == 0 }) { break }
            if ready.isEmpty && now0 > measureTo + 30_000_000_000 { throw BenchError("replies stopped coming") }
            for item in ready {
                let c = list[item.index]
                while let message = try c.dealer.socket.receive(dontWait: true) {
                    let now = Clock.monotonicNanoseconds()
                    let sent = c.popSent()
                    if case .error? = try ProtocolDealer.decode(message).body { errors += 1 }
                    if now >= measureFrom && now <= measureTo {
                        completed += 1
                        recorder.record(from: sent, to: now)
                    }
                    // Keep each node's stop/start alternation whole: end every client on a start.
                    if sending || !c.starting { try c.sendNext() }
                }
            }
            if !sending && list.allSatisfy({ $0.outstanding == 0 }) { break }
        }
        return Point(clients: clients, window: window, commandsPerSecond: Double(completed) / seconds,
                     latency: recorder.summary, errors: errors)
    }
}
