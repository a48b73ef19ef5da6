import CamsyncProcessLab
import CamsyncRuntime
import CamsyncStats
import Foundation
import ZeroMQ

/// `fleet`: one leader (a real `camsync coordinator`, journal off, heartbeat 500 ms × 3; quick: 1,000 ms,
/// see `baseHeartbeat`) and a fleet
/// of real nodes: devices, each with a display that attaches itself to it, as node sessions in
/// `camsync bench fleet-shard` processes (`FleetShards`: 1,000 devices a process, each node with
/// its own DEALER to the coordinator). At each size (quick: 100 and 1,000 nodes; full: also 5,000 and
/// `--fleet-nodes`, 10,000 by default; when the largest does not fit on the machine, a note says
/// why), measured:
/// - registration + sync: the shards' start → every node registered and synced, every display
///   attached in its own replica;
/// - heartbeats only (a window with no command): the leader's CPU and what one node heartbeat costs
///   it (its CPU over the heartbeats the nodes sent), a node's CPU;
/// - 0.5 commands per device per second (`FleetLoad`): command sent → the last node of its group
///   applied its batch; the batch copies the nodes received per batch (each one a copy the
///   leader sent); the leader's CPU, a node's CPU and memory;
/// - the floor, with the fleet joined: a raw DEALER/ROUTER echo of a request's size (`Floor`).
/// Then the largest size again at the interval docs/OPERATIONS.md gives for it (`FleetSizing`; quick:
/// 2 s), with the same load: the delivery target is judged there, as the fleet would run. Last, the
/// deployed configuration at that size and interval (quick: 100 nodes): CURVE on every connection, the
/// journal with `durability: full`, and an fdatasync floor for the ack. Every row says the
/// 1-minute load average when it was measured.
public enum FleetBenchmark {
    /// Commands per device per second (docs/OPERATIONS.md "Sizing": active use).
    static let perDevice = 0.5
    static let liveness: Int64 = 3

    /// The interval every size is measured at first. The quick form (`make test`, debug build, beside
    /// every other suite on two cores) takes 1,000 ms: a shard process of 1,000 debug node sessions
    /// needs about a third of a core at 500 ms, and a machine that cannot give it that makes its
    /// nodes truly silent, so the leader rightly declares them dead and the run fails.
    static func baseHeartbeat(_ settings: BenchSettings) -> Int64 { settings.pick(500, quick: 1000) }

    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "fleet")
        let largest = max(2, settings.fleetNodes / 2 * 2)
        // 5,000 (the fleet target's least) always; a larger --fleet-nodes is tried after it.
        let sizes = settings.fleetSizes?.sorted() ?? Set(settings.pick([100, 1000, 5000, largest], quick: [100, 1000]).map { min($0, largest) }).sorted()
        var points: [Point] = []
        for nodes in sizes {
            settings.progress("fleet: \(nodes) nodes, heartbeat \(baseHeartbeat(settings)) ms")
            do {
                let point = try measure(settings, nodes: nodes, heartbeatMilliseconds: baseHeartbeat(settings))
                result.rows += point.rows
                points.append(point)
            } catch let error as FleetDoesNotFit where nodes == sizes.last && nodes > 1000 {
                // The largest fleet is what is being found out: a smaller one that fits still measures the rest.
                result.notes.append("\(nodes) nodes did not fit on this machine: \(error)")
                settings.progress("fleet: \(nodes) nodes did not fit: \(error)")
            }
        }
        // The largest size again at the interval docs/OPERATIONS.md gives for it: the requested one even
        // when it did not fit at the base interval. Beyond the 10,000 nodes the targets hold a leader to,
        // one that does not fit there either is where a fleet stops, said in a note, and the largest that
        // fitted is measured instead; up to 10,000 it fails the run.
        let requested = sizes.last ?? largest
        var slow: Point?
        for nodes in [requested] + (points.last.map { $0.nodes == requested ? [] : [$0.nodes] } ?? []) where slow == nil {
            let longer: Int64 = settings.pick(max(1000, FleetSizing.heartbeatMilliseconds(nodes: nodes)), quick: 2000)
            settings.progress("fleet: \(nodes) nodes, heartbeat \(longer) ms")
            do {
                slow = try measure(settings, nodes: nodes, heartbeatMilliseconds: longer)
            } catch let error as FleetDoesNotFit where nodes == requested && nodes > 10_000 {
                result.notes.append("\(nodes) nodes did not fit at a \(longer) ms heartbeat either: \(error)")
                settings.progress("fleet: \(nodes) nodes did not fit at \(longer) ms: \(error)")
            }
        }
        guard let slow else { throw BenchError("no fleet size could be measured") }
        result.rows += slow.rows
        // The deployed configuration (CURVE, the journal full) at the largest size and the interval it
        // is sized for (quick: 100 nodes at the base interval).
        let deployedNodes = settings.pick(slow.nodes, quick: 100)
        let deployedInterval = settings.pick(slow.heartbeatMilliseconds, quick: baseHeartbeat(settings))
        settings.progress("fleet: \(deployedNodes) nodes, CURVE, journal full, heartbeat \(deployedInterval) ms")
        let deployed = try measure(settings, nodes: deployedNodes, heartbeatMilliseconds: deployedInterval, deployed: true)
        result.rows += deployed.rows
        result.targets = targets(points, sized: slow) + deployedTargets(deployed)
        result.notes += (points + [slow, deployed]).flatMap(\.notes)
        result.notes.append("a row that names no heartbeat interval was measured at \(baseHeartbeat(settings)) ms")
        result.notes.append("the coordinator runs with the journal off (the figures are the turn and the fan-out, not an fsync) and "
            + "lab mode (no CURVE), except in the rows that say \"CURVE, journal full\" (the deployed configuration: every "
            + "connection under CURVE with each node's own key, bound to its id; the journal synced before each ack); the nodes are real NodeSessions (`camsync node`'s protocol logic) in `camsync bench fleet-shard` "
            + "processes of 1,000 devices and their displays, one thread each, on the same 2 cores as the leader and the bench; "
            + "commands are sent by the bench process as each device (stop/start of app 0's session, which holds its camera), "
            + "\(perDevice) a device a second spread evenly; a node's CPU is the shard processes' CPU time over nodes and seconds, "
            + "its memory their RSS less what they held before their first node")
        return result
    }

    /// What one fleet size measured.
    struct Point {
        var nodes: Int
        var heartbeatMilliseconds: Int64
        var deployed = false
        var rows: [BenchRow] = []
        var notes: [String] = []
        var joinSeconds = 0.0
        var delivery: LatencySummary?
        var floor: LatencySummary?
        var copiesPerBatch: Double?
        var ack: LatencySummary?
        /// The deployed configuration's disk floor.
        var fdatasync: LatencySummary?
        /// The leader's RSS and descriptors beyond an empty leader's, per node, with every node heartbeating.
        var leaderKilobytesPerNode: Double?
        var descriptorsPerNode: Double?
        /// How evenly the leader's heartbeats and bookmarks reached the nodes with no command.
        var spread: ArrivalSpread?
        /// A node's CPU (µs per second) and memory (kB) under the command load.
        var nodeCPU: Double?
        var nodeKilobytes: Double?
    }

    /// One fleet size at one interval. `deployed`: as a fleet is deployed, CURVE on every connection
    /// (the nodes' keys bound to their ids, `FleetKeys`) and the journal with `durability: full`;
    /// otherwise lab mode with the journal off.
    static func measure(_ settings: BenchSettings, nodes: Int, heartbeatMilliseconds: Int64, deployed: Bool = false) throws -> Point {
        let label = "\(nodes)-\(heartbeatMilliseconds)\(deployed ? "-deployed" : "")"
        let dir = try settings.directory("fleet-\(label)")
        let devices = nodes / 2
        var point = Point(nodes: nodes, heartbeatMilliseconds: heartbeatMilliseconds, deployed: deployed)
        let keys = deployed ? try FleetKeys() : nil
        let keyFiles = try keys?.writeCoordinatorFiles(directory: dir, nodes: (0..<devices).flatMap { [SimulatedNode.id($0), SimulatedNode.displayID($0)] })
        let coordinator = try CoordinatorProcess(executable: settings.executable, directory: dir,
            options: .init(durability: deployed ? "full" : "off", heartbeatMs: heartbeatMilliseconds, liveness: liveness,
                           prefix: settings.coordinatorPrefix, keyFiles: keyFiles))
        try coordinator.launch()
        defer { coordinator.stop() }
        let context = try ZMQContext(ioThreads: 1)
        let setup = try ProtocolDealer(context: context, endpoint: coordinator.commandEndpoint,
                                       curve: keys.map { (serverKey: $0.coordinator.publicKey, keys: $0.admin) })
        defer { setup.close() }
        try BenchWait.serving(setup, coordinator: coordinator)
        let emptyDescriptors = BenchSystem.openDescriptors(pid: coordinator.pid) ?? 0
        let emptyRSS = coordinator.rssMB ?? 0
        let interval = heartbeatMilliseconds == baseHeartbeat(settings) ? "" : ", heartbeat \(heartbeatMilliseconds) ms"
        let name = "\(nodes) nodes\(interval)\(deployed ? ", CURVE, journal full" : "")"

        // Registration + sync.
        var load = BenchSystem.loadAverage()
        let joinStart = Clock.monotonicNanoseconds()
        let shards = try FleetShards(settings, context: context, directory: dir, label: label,
                                     commandEndpoints: [coordinator.commandEndpoint], eventEndpoints: [coordinator.eventEndpoint],
                                     devices: devices, heartbeatMilliseconds: heartbeatMilliseconds, liveness: liveness, keys: keys)
        defer { shards.stop() }
        let joinLimit = settings.pick(300.0, quick: 90.0)
        var lastProgress = joinStart
        while shards.joined < nodes {
            let now = Clock.monotonicNanoseconds()
            guard Double(now - joinStart) / 1e9 < joinLimit else {
                throw FleetDoesNotFit("\(shards.joined) of \(nodes) nodes joined within \(Int(joinLimit)) s (logs in \(dir))\n"
                    + shards.logTails())
            }
            // Registrations beyond one a node: nodes declared dead for silence while others join (the
            // nodes' processes or the leader fall behind their heartbeats on these cores).
            guard shards.registrations <= nodes + nodes / 10 else {
                throw FleetDoesNotFit("\(shards.registrations - nodes) registrations beyond one a node after \(shards.joined) joined: "
                    + "nodes declared dead for silence while joining (logs in \(dir))")
            }
            if now - lastProgress > 10_000_000_000 {
                lastProgress = now
                settings.progress("fleet: \(shards.joined)/\(nodes) nodes joined")
            }
            do {
                try shards.pump(milliseconds: 50)
            } catch let error as BenchError {
                // A shard process that ends while its nodes join: its thousands of nodes ran out of
                // descriptors reopening connections to a leader they found silent (the leader could not
                // keep up with their heartbeats), or something else its log says.
                throw FleetDoesNotFit("\(error) (at \(shards.joined) of \(nodes) joined; logs in \(dir))")
            }
        }
        point.joinSeconds = Double(Clock.monotonicNanoseconds() - joinStart) / 1e9
        point.rows.append(BenchRow(benchmark: "fleet", scenario: "\(name) (\(devices) devices + \(devices) displays, \(shards.processes) "
            + "shard processes): start → all registered and synced (load \(StandbyRebuild.format(load)))",
            latency: LatencySummary(microseconds: [point.joinSeconds * 1e6])))
        settings.progress(String(format: "fleet: %d nodes joined in %.1f s", nodes, point.joinSeconds))

        // Every device's app 0 holds its camera; its group's nodes apply the three batches.
        try setup.pipeline((0..<devices).flatMap { d in SimulatedNode.claim(SimulatedNode.id(d)).map { ($0, SimulatedNode.id(d)) } })
        try pump(shards, seconds: 1)

        // Heartbeats only.
        let idleSeconds = max(settings.pick(5.0, quick: 2.0), 3 * Double(heartbeatMilliseconds) / 1000)
        load = BenchSystem.loadAverage()
        let idle = try window(shards, coordinator: coordinator, heartbeatMilliseconds: heartbeatMilliseconds) { try pump(shards, seconds: idleSeconds) }
        let heartbeatsPerSecond = Double(idle.heartbeats) / idle.seconds
        let perHeartbeat = idle.leaderCPU / Double(max(1, idle.heartbeats)) * 1e6
        let descriptors = BenchSystem.openDescriptors(pid: coordinator.pid) ?? 0
        point.rows.append(BenchRow(benchmark: "fleet", scenario: String(format: "%@, heartbeats only: leader %.1f %% of a core, "
            + "%.1f µs per node heartbeat; %.0f heartbeats/s; a node %.0f µs CPU/s; leader %d descriptors (%d empty) "
            + "(load %@)", name, idle.leaderCPU / idle.seconds * 100, perHeartbeat, heartbeatsPerSecond,
            idle.shardsCPU / idle.seconds / Double(nodes) * 1e6, descriptors, emptyDescriptors, StandbyRebuild.format(load)),
            throughputPerSecond: heartbeatsPerSecond, rssMB: coordinator.rssMB))
        if let spread = idle.spread {
            point.spread = spread
            point.rows.append(BenchRow(benchmark: "fleet", scenario: String(format: "%@, heartbeats only: the leader's heartbeats and "
                + "bookmarks reaching the nodes, in the least even of %d intervals the busiest 100 ms %d, the average %.1f (%.2f ×) "
                + "(load %@)", name, spread.intervals, spread.busiest, spread.average, spread.ratio, StandbyRebuild.format(load))))
        }
        point.leaderKilobytesPerNode = ((coordinator.rssMB ?? 0) - emptyRSS) * 1024 / Double(nodes)
        point.descriptorsPerNode = Double(descriptors - emptyDescriptors) / Double(nodes)
        point.notes.append(String(format: "%@: the leader's RSS %.1f MB with every node heartbeating (%.1f MB empty): %.1f kB a node; "
            + "%.2f descriptors a node at the leader", name, coordinator.rssMB ?? 0, emptyRSS,
            point.leaderKilobytesPerNode!, point.descriptorsPerNode!))

        load = BenchSystem.loadAverage()
        var outcome: FleetLoad.Outcome?
        let loadSeconds = settings.pick(10.0, quick: 4.0)
        // Lines a profile of the phase can start and stop at (tools/profile-phase.sh).
        settings.progress("fleet: \(name): sending commands for \(Int(loadSeconds)) s")
        let busy = try window(shards, coordinator: coordinator, heartbeatMilliseconds: heartbeatMilliseconds) {
            outcome = try FleetLoad.run(setup, shards: shards, perDevice: perDevice, seconds: loadSeconds)
        }
        settings.progress("fleet: \(name): commands sent")
        let loaded = outcome!
        point.delivery = loaded.delivery
        point.ack = loaded.ack
        point.copiesPerBatch = Double(busy.batchCopies) / Double(max(1, loaded.acked))
        point.nodeCPU = busy.shardsCPU / busy.seconds / Double(nodes) * 1e6
        point.nodeKilobytes = shards.nodesRSSMegabytes * 1024 / Double(nodes)
        // The floor, with the fleet joined and heartbeating.
        let echo = try Floor.requestEcho(settings, directory: "fleet-floor-\(label)")
        let floor = echo.summary
        point.floor = floor
        var floorRow = echo.row
        floorRow.scenario = "\(name) joined: \(echo.row.scenario) (load \(StandbyRebuild.format(BenchSystem.loadAverage())))"
        if deployed {
            // What an acknowledgement waits for on this disk: the journal's fdatasync (of a turn's size).
            let sync = try DiskSync.measure(directory: dir, count: settings.pick(200, quick: 50))
            point.fdatasync = sync
            point.rows.append(BenchRow(benchmark: "floor", scenario: "\(name) joined: fdatasync of 4 kB in the bench's directory "
                + "(load \(StandbyRebuild.format(BenchSystem.loadAverage())))", latency: sync))
        }
        point.rows += [
            floorRow,
            BenchRow(benchmark: "fleet", scenario: String(format: "%@: command → the last node of its group applied it, "
                + "%.1f commands/s (load %@)", name, loaded.rate, StandbyRebuild.format(load)),
                latency: loaded.delivery, throughputPerSecond: loaded.rate, floorP50: floor.p50),
            BenchRow(benchmark: "fleet", scenario: "\(name): command → ack (the same commands) (load \(StandbyRebuild.format(load)))",
                     latency: loaded.ack),
            BenchRow(benchmark: "fleet", scenario: String(format: "%@: %.2f batch copies per batch (%d copies received by the "
                + "nodes / %d batches), %.0f B a copy (topic + envelope) (load %@)", name, point.copiesPerBatch!,
                busy.batchCopies, loaded.acked, Double(busy.batchBytes) / Double(max(1, busy.batchCopies)),
                StandbyRebuild.format(load))),
            BenchRow(benchmark: "fleet", scenario: String(format: "%@, commands: leader %.1f %% of a core; a node %.0f µs CPU/s, "
                + "%.0f kB (load %@)", name, busy.leaderCPU / busy.seconds * 100, point.nodeCPU!, point.nodeKilobytes!,
                StandbyRebuild.format(load)), rssMB: coordinator.rssMB),
        ]
        if loaded.refused > 0 || loaded.undelivered > 0 {
            point.notes.append("\(name): \(loaded.refused) commands refused, \(loaded.undelivered) acknowledged but not applied by "
                + "both nodes of their group within 10 s of the last send")
        }
        try shards.freshStatuses()
        point.notes.append(String(format: "%@: %d snapshot requests, %.2f a node (a node asks for its group's once when it starts; a display "
            + "that registered before its device asks again once it has attached itself)", name, shards.snapshotRequests,
            Double(shards.snapshotRequests) / Double(nodes)))
        if shards.registrations > nodes {
            point.notes.append("\(name): \(shards.registrations - nodes) registrations beyond the first of each node "
                + "(nodes declared dead for silence, on a loaded machine)")
        }
        return point
    }

    /// A fleet too large for this machine: it did not join, or its nodes were declared dead while joining.
    struct FleetDoesNotFit: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What a window of the fleet's life cost: the leader's and the shards' CPU seconds, and the
    /// heartbeats and batch copies the shards counted.
    struct Window {
        var seconds: Double
        var leaderCPU: Double
        var shardsCPU: Double
        var heartbeats: Int
        var batchCopies: Int
        var batchBytes: Int
        /// The leader's heartbeats and bookmarks arriving over the window's 100 ms buckets.
        var spread: ArrivalSpread?
    }

    static func window(_ shards: FleetShards, coordinator: CoordinatorProcess, heartbeatMilliseconds: Int64,
                       _ body: () throws -> Void) throws -> Window {
        try shards.freshStatuses()
        let (heartbeats, copies, bytes) = (shards.heartbeatsSent, shards.batchCopies, shards.batchBytes)
        let (leader, nodes) = (BenchSystem.processCPUSeconds(pid: coordinator.pid) ?? 0, shards.cpuSeconds)
        let start = Clock.monotonicNanoseconds()
        try body()
        let end = Clock.monotonicNanoseconds()
        let seconds = Double(end - start) / 1e9
        let (leaderAfter, nodesAfter) = (BenchSystem.processCPUSeconds(pid: coordinator.pid) ?? 0, shards.cpuSeconds)
        try shards.freshStatuses()   // a shard reports a bucket's arrivals once it is closed, before its status
        return Window(seconds: seconds, leaderCPU: leaderAfter - leader, shardsCPU: nodesAfter - nodes,
                      heartbeats: shards.heartbeatsSent - heartbeats, batchCopies: shards.batchCopies - copies,
                      batchBytes: shards.batchBytes - bytes, spread: ArrivalSpread(shards.arrivals, from: start, to: end, intervalMilliseconds: heartbeatMilliseconds))
    }

    /// Takes the shards' reports for `seconds`.
    static func pump(_ shards: FleetShards, seconds: Double) throws {
        let until = Clock.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while Clock.monotonicNanoseconds() < until { try shards.pump(milliseconds: 50) }
    }

    /// The deployed configuration's targets (CURVE, the journal full): joined within 30 s; a batch
    /// reaches its group within 2 × the raw echo p99, and an ack within that plus an fdatasync's p99;
    /// one descriptor a node at the leader (5 % slack), and at most 32 kB of its memory a node.
    static func deployedTargets(_ point: Point) -> [TargetCheck] {
        let name = "fleet, \(point.nodes) nodes, CURVE, journal full"
        var checks = [TargetCheck(figure: "\(name): registration + sync of every node", measured: point.joinSeconds * 1e6,
                                  .atMost, 30e6, unit: .microseconds, basis: "all registered and synced within 30 s")]
        if let delivery = point.delivery, let floor = point.floor {
            checks.append(TargetCheck(figure: "\(name), heartbeat \(point.heartbeatMilliseconds) ms: a batch reaches every node of its "
                                      + "group, p99", measured: delivery.p99, .atMost, 2 * floor.p99, unit: .microseconds,
                                      basis: "2 × raw echo p99 \(ReportFormatter.duration(microseconds: floor.p99)), same run, fleet joined"))
            if let ack = point.ack, let sync = point.fdatasync {
                checks.append(TargetCheck(figure: "\(name), heartbeat \(point.heartbeatMilliseconds) ms: command → ack, p99",
                                          measured: ack.p99, .atMost, 2 * floor.p99 + sync.p99, unit: .microseconds,
                                          basis: "2 × raw echo p99 + fdatasync p99 \(ReportFormatter.duration(microseconds: sync.p99)), same run"))
            }
        }
        if let spread = spreadTarget(point, name: name) { checks.append(spread) }
        if let descriptors = point.descriptorsPerNode {
            checks.append(TargetCheck(figure: "\(name): descriptors at the leader per node", measured: descriptors, .atMost, 1.05,
                                      unit: .ratio, basis: "one connection a node"))
        }
        if let kilobytes = point.leaderKilobytesPerNode {
            checks.append(TargetCheck(figure: "\(name): the leader's memory per node (kB)", measured: kilobytes, .atMost, 32,
                                      unit: .count, basis: "RSS with every node heartbeating less an empty leader's, over the nodes"))
        }
        return checks
    }

    /// The heartbeat spread's target: no 100 ms carries more than twice the average of the leader's
    /// heartbeats and bookmarks (nil when the window measured none).
    static func spreadTarget(_ point: Point, name: String) -> TargetCheck? {
        point.spread.map { spread in
            TargetCheck(figure: "\(name), heartbeat \(point.heartbeatMilliseconds) ms: heartbeats and bookmarks in the busiest 100 ms "
                        + "over the average", measured: spread.ratio, .atMost, 2, unit: .ratio,
                        basis: "each node at its slot of the interval, not all at once")
        }
    }

    /// `sized`: the largest fleet at the interval docs/OPERATIONS.md gives for it.
    static func targets(_ points: [Point], sized: Point) -> [TargetCheck] {
        var checks: [TargetCheck] = []
        for point in points {
            checks.append(TargetCheck(figure: "fleet, \(point.nodes) nodes: registration + sync of every node", measured: point.joinSeconds * 1e6,
                                      .atMost, 60e6, unit: .microseconds, basis: "all registered and synced within 60 s"))
            if let copies = point.copiesPerBatch {
                checks.append(TargetCheck(figure: "fleet, \(point.nodes) nodes: copies the leader sends per batch", measured: copies,
                                          .atMost, 2, unit: .ratio, basis: "the group's nodes (a device and its display) + 0 observers"))
            }
        }
        if let delivery = sized.delivery, let floor = sized.floor {
            checks.append(TargetCheck(figure: "fleet, \(sized.nodes) nodes, heartbeat \(sized.heartbeatMilliseconds) ms: a batch reaches "
                                      + "every node of its group, p99", measured: delivery.p99, .atMost, 2 * floor.p99, unit: .microseconds,
                                      basis: "2 × raw echo p99 \(ReportFormatter.duration(microseconds: floor.p99)), same run, fleet joined"))
        }
        if let spread = spreadTarget(sized, name: "fleet, \(sized.nodes) nodes") { checks.append(spread) }
        if let first = points.first, let last = points.last, first.nodes != last.nodes,
           let cpu0 = first.nodeCPU, let cpu1 = last.nodeCPU, let kb0 = first.nodeKilobytes, let kb1 = last.nodeKilobytes {
            let span = "\(first.nodes) → \(last.nodes) nodes"
            checks.append(TargetCheck(figure: "fleet: a node's CPU per second, \(span)", measured: cpu1 / max(cpu0, 1e-9), .atMost, 1.2,
                                      unit: .ratio, basis: String(format: "%.0f µs/s at %d, %.0f µs/s at %d, %.1f commands per device per second",
                                                                  cpu0, first.nodes, cpu1, last.nodes, perDevice)))
            checks.append(TargetCheck(figure: "fleet: a node's memory, \(span)", measured: kb1 / max(kb0, 1e-9), .atMost, 1.2,
                                      unit: .ratio, basis: String(format: "%.0f kB at %d, %.0f kB at %d", kb0, first.nodes, kb1, last.nodes)))
        }
        return checks
    }
}
