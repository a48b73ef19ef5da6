import CamsyncRuntime
import CamsyncStats
import Foundation
import ZeroMQ

/// `fleet-failover`: the HA leader killed with SIGKILL while a fleet is joined (docs/PERFORMANCE.md's
/// target "HA leader kill -9 with the largest fleet joined"). Three `camsync coordinator --etcd` on a 3-member
/// loopback etcd at its default timing (lease 2 s, camsync's default pulse and suspicion), the fleet
/// in `camsync bench fleet-shard` processes (`FleetShards`: devices each with a display, every node
/// a real `NodeSession` with a DEALER to each of the three coordinators), the
/// heartbeat interval docs/OPERATIONS.md gives for the fleet's size. The trials are
/// `HAFailoverBenchmark.trials`: kill → etcd's announcement (the floor), the first ack of the new
/// leader to a client following it, every node following it; registrations and snapshot requests
/// the nodes sent and connections they reopened (SPEC K7: none); then the mass rejoin (`MassRejoin`:
/// every node process restarted at once, no leadership move, a steady client's acks meanwhile). Sizes: quick 200 nodes; full 1,000, 5,000 and `--fleet-nodes`
/// when it fits the coordinators' descriptors (one a node at each: at most 15,000 here).
public enum FleetFailoverBenchmark {
    static let liveness: Int64 = 3
    /// The shard processes run at this nice value: in a deployment the nodes are other machines, and
    /// here thousands of them would otherwise take the coordinators' and etcd's CPU when they all
    /// move at once (a failover) or join, so that a leader's loop could not pulse within the
    /// suspicion window and the leadership would move again for the nodes' sake, not the cluster's.
    static let shardNiceness: Int32 = 10

    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "fleet-failover")
        let largest = min(15_000, max(2, settings.fleetNodes / 2 * 2))
        let sizes = settings.fleetSizes?.sorted() ?? Set(settings.pick([1_000, 5_000, largest], quick: [200]).map { min($0, largest) }).sorted()
        // Lab mode at every size (quick: none), then the deployed configuration at the largest: CURVE
        // on every connection, the coordinators sharing the cluster's key pair. Every run must pass: a
        // node that never joins or rejoins, like a leadership move, fails the run with what went wrong
        // (the largest size too: where it stops is what it says).
        let runs = (settings.quick ? [] : sizes.map { ($0, false) }) + [(sizes.last ?? largest, true)]
        for (nodes, deployed) in runs {
            let (rows, checks, notes) = try runOne(settings, nodes: nodes, deployed: deployed, trials: settings.pick(5, quick: 2))
            result.rows += rows
            result.targets += checks
            result.notes += notes
        }
        result.notes.append("3 coordinators on 3 loopback etcd members (mutual TLS), journal on etcd; lab mode, or CURVE on every "
            + "connection where a row says so; the nodes are real "
            + "NodeSessions in `camsync bench fleet-shard` processes of 1,000 devices and their displays, one thread each, on the "
            + "same 2 cores as the coordinators, etcd and the bench, at nice \(shardNiceness) (the nodes stand for other machines); "
            + "the client and the trials are ha-failover's")
        return result
    }

    /// One fleet size; `deployed`: CURVE on every connection (`FleetKeys`), else lab mode.
    static func runOne(_ settings: BenchSettings, nodes: Int, deployed: Bool, trials: Int) throws -> ([BenchRow], [TargetCheck], [String]) {
        let heartbeat = FleetSizing.heartbeatMilliseconds(nodes: nodes)
        let setting = HAFailoverBenchmark.settings[0]
        let devices = nodes / 2
        let dir = try settings.directory("fleet-failover-\(nodes)\(deployed ? "-deployed" : "")")
        settings.progress("fleet-failover: \(nodes) nodes, heartbeat \(heartbeat) ms\(deployed ? ", CURVE" : "")")
        let keys = deployed ? try FleetKeys() : nil
        let cluster = try HACoordinators(settings, directory: dir, count: 3, timing: setting.timing, leaseSeconds: setting.leaseSeconds,
                                         heartbeatMs: heartbeat, liveness: liveness, pulseMs: setting.pulseMs,
                                         suspicionMs: setting.suspicionMs, keys: keys,
                                         admitting: (0..<devices).flatMap { [SimulatedNode.id($0), SimulatedNode.displayID($0)] })
        defer { cluster.stop() }
        let leader = try cluster.waitForLeader()
        let context = try ZMQContext(ioThreads: 1)
        let commandEndpoints = cluster.coordinators.map(\.commandEndpoint)
        let load = BenchSystem.loadAverage()
        let joinStart = Clock.monotonicNanoseconds()
        func startShards(_ label: String) throws -> FleetShards {
            try FleetShards(settings, context: context, directory: dir, label: label, commandEndpoints: commandEndpoints,
                            eventEndpoints: cluster.coordinators.map(\.eventEndpoint), devices: devices,
                            heartbeatMilliseconds: heartbeat, liveness: liveness, niceness: Self.shardNiceness, keys: keys)
        }
        var shards = try startShards("\(nodes)")
        defer { shards.stop() }
        let joinLimit = settings.pick(300.0, quick: 90.0)
        var nextLeaderCheck = joinStart + 1_000_000_000, lastProgress = joinStart
        while shards.joined < nodes || shards.following(commandEndpoints[leader]) < nodes {
            let now = Clock.monotonicNanoseconds()
            guard Double(now - joinStart) / 1e9 < joinLimit else {
                throw BenchError("\(shards.joined) of \(nodes) nodes joined, \(shards.following(commandEndpoints[leader])) following "
                    + "c\(leader), within \(Int(joinLimit)) s (logs in \(dir))")
            }
            if now >= nextLeaderCheck {
                nextLeaderCheck = now + 1_000_000_000
                try cluster.checkLeads(leader, while: "the join of \(nodes) nodes, at \(shards.joined)", directory: dir)
            }
            if now - lastProgress > 10_000_000_000 {
                lastProgress = now
                settings.progress("fleet-failover: \(shards.joined)/\(nodes) nodes joined")
            }
            try shards.pump(milliseconds: 50)
        }
        let joinSeconds = Double(Clock.monotonicNanoseconds() - joinStart) / 1e9
        settings.progress(String(format: "fleet-failover: %d nodes joined in %.1f s", nodes, joinSeconds))
        let label = "\(nodes) nodes in \(shards.processes) shard processes, heartbeat \(heartbeat) ms\(deployed ? ", CURVE" : "")"
        var (rows, checks, trialNotes) = try HAFailoverBenchmark.trials(settings, benchmark: "fleet-failover", setting, cluster: cluster,
                                                                        leader: leader, nodes: shards, count: nodes, label: label,
                                                                        trials: trials, context: context, directory: dir)
        let after = BenchSystem.loadAverage()
        for index in rows.indices { rows[index].scenario += " (load \(StandbyRebuild.format(after)))" }
        let rejoin = try MassRejoin.measure(settings, cluster: cluster, shards: shards, restart: { try startShards("\(nodes)-rejoin") },
                                            nodes: nodes, label: label, context: context, directory: dir)
        shards = rejoin.shards
        let rejoinLoad = BenchSystem.loadAverage()
        rows += rejoin.rows.map { row in
            var row = row
            row.scenario += " (load \(StandbyRebuild.format(rejoinLoad)))"
            return row
        }
        checks += rejoin.checks
        rows.insert(BenchRow(benchmark: "fleet-failover", scenario: "\(label): start → all registered, synced and following the leader "
            + "(load \(StandbyRebuild.format(load)))", latency: LatencySummary(microseconds: [joinSeconds * 1e6])), at: 0)
        if let leader = try? cluster.waitForLeader(), let rss = cluster.coordinators[leader].rssMB {
            trialNotes.append(String(format: "%@: the leader's RSS after the trials %.0f MB", label, rss))
        }
        return (rows, checks, trialNotes)
    }
}
