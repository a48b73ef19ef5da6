import CamsyncProcessLab
import CamsyncStats
import CamsyncEtcd
import CamsyncRuntime
import Foundation
import ZeroMQ

/// `ha-failover`: the HA leader is killed with SIGKILL while a client sends it a command every few
/// ms (`LeaderFollowingClient`), and N real node sessions (`NodeFleet`: 3, and 1,000) follow the
/// cluster. Measured from the kill to: etcd announcing the next leader (`EtcdLeaderWatch`, the
/// floor); the first answer of the new leader (a reply of a higher term to the retried command);
/// and every node following it (its DEALER moved to the new leader). Counted: registrations and
/// snapshot requests the nodes sent during the failover (SPEC K7: none). Repeated trials, the killed
/// coordinator restarting as a standby in between; at etcd's default timing with a 2 s lease and
/// camsync's default suspicion (a standby that hears no pulse from the leader for 400 ms revokes
/// its lease), and tuned (etcd 50 / 500 ms, lease 1 s, pulse 25 ms, suspicion 200 ms).
public enum HAFailoverBenchmark {
    struct Setting {
        var label: String
        var timing: EtcdCluster.Timing
        var leaseSeconds: Int64
        var pulseMs: Int64?
        var suspicionMs: Int64?
        /// Targets (failover by suspicion, not lease expiry): first ack p50 and max; nil: none for that figure.
        var firstAckP50: Double?
        var firstAckMax: Double?
    }

    static let settings = [
        Setting(label: "default: etcd 100/1000 ms, lease 2 s, suspicion 400 ms",
                timing: .init(heartbeatMilliseconds: 100, electionTimeoutMilliseconds: 1000), leaseSeconds: 2,
                pulseMs: nil, suspicionMs: nil, firstAckP50: 500, firstAckMax: 1000),
        Setting(label: "tuned: etcd 50/500 ms, lease 1 s, suspicion 200 ms",
                timing: .init(heartbeatMilliseconds: 50, electionTimeoutMilliseconds: 500), leaseSeconds: 1,
                pulseMs: 25, suspicionMs: 200, firstAckP50: 300, firstAckMax: nil),
    ]

    /// The target (SPEC K7: a leader change is not a restart): every node follows the new leader
    /// within this many ms of its first ack. One definition for every fleet size (`ha-failover`'s
    /// 1,000 nodes and `fleet-failover`'s fleets).
    static let followAfterAckMilliseconds: Double = 200

    /// Node liveness (both ways) of 10 heartbeats (5 s): a thousand sessions share this process's
    /// CPU, and node liveness is not what is measured here.
    static let liveness: Int64 = 10

    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "ha-failover")
        for setting in Self.settings {
            for nodes in [3, settings.pick(1000, quick: 200)] {
                let trials = nodes > 3 ? settings.pick(10, quick: 2) : settings.pick(20, quick: 2)
                let (rows, checks, notes) = try runOne(settings, setting, nodes: nodes, trials: trials)
                result.rows += rows
                result.targets += checks
                result.notes += notes
            }
        }
        result.notes.append("3 coordinators (heartbeat 500 ms, node liveness 10 heartbeats both ways) on 3 loopback etcd members; the nodes are real NodeSessions in "
            + "the benchmark process, each with a DEALER to every coordinator (NodeConnections, as `camsync node` opens them); the client "
            + "retries its command with the same request id, after 2 ms on NOT_LEADER and after 20 ms without an answer (the "
            + "first answer can lag the new leader by up to that); the kill lands at a random phase of the lease renewal; "
            + "the client sends a command every 2 ms with 3 nodes, every 50 ms with more (every node applies every batch; "
            + "its first ack can then lag by up to 50 ms more)")
        return result
    }

    static func runOne(_ settings: BenchSettings, _ given: Setting, nodes: Int, trials: Int) throws
        -> ([BenchRow], [TargetCheck], [String]) {
        var setting = given
        if nodes >= 100 {
            // Hundreds of node sessions in this process take most of the 2 cores while they join (each
            // decodes a snapshot of the whole cluster): the coordinators' loops get too little CPU to
            // pulse within 400 ms, and standbys depose healthy leaders. These rows measure what the
            // nodes do (all follow, none rejoins), with a 2 s window; the 3-node rows measure the time.
            setting.pulseMs = 100
            setting.suspicionMs = 2_000
            setting.label = setting.label.replacingOccurrences(of: "suspicion 400 ms", with: "suspicion 2 s")
                .replacingOccurrences(of: "suspicion 200 ms", with: "suspicion 2 s")
            setting.firstAckP50 = nil
            setting.firstAckMax = nil
        }
        let dir = try settings.directory("ha-failover-lease\(setting.leaseSeconds)-\(nodes)")
        let cluster = try HACoordinators(settings, directory: dir, count: 3, timing: setting.timing,
                                         leaseSeconds: setting.leaseSeconds, heartbeatMs: 500, liveness: Self.liveness,
                                         pulseMs: setting.pulseMs, suspicionMs: setting.suspicionMs)
        defer { cluster.stop() }
        let leader = try cluster.waitForLeader()
        // Two sockets per node, and as many again closed by a failover's reconnects, not reaped yet.
        let context = try ZMQContext(ioThreads: 2, maxSockets: 4 * nodes + 256)
        let commandEndpoints = cluster.coordinators.map(\.commandEndpoint)
        settings.progress("ha-failover: \(nodes) nodes joining")
        let fleet = NodeFleet(context: context, commandEndpoints: commandEndpoints,
                              eventEndpoints: cluster.coordinators.map(\.eventEndpoint), heartbeatMilliseconds: 500,
                              liveness: Self.liveness)
        defer { fleet.close() }
        // In waves of 50: a thousand nodes joining at once is a storm of snapshots, each encoded on the
        // leader's loop (what is measured here is the failover, not the join).
        let joinSeconds = settings.pick(300, quick: 60)
        let joined = Clock.monotonicNanoseconds() + UInt64(joinSeconds) * 1_000_000_000
        var nextLeaderCheck = Clock.monotonicNanoseconds() + 1_000_000_000
        while fleet.count < nodes || !fleet.allSynced(following: commandEndpoints[leader]) {
            if Clock.monotonicNanoseconds() >= nextLeaderCheck {
                nextLeaderCheck = Clock.monotonicNanoseconds() + 1_000_000_000
                try cluster.checkLeads(leader, while: "\(setting.label), \(nodes) nodes: the join, at \(fleet.count) nodes", directory: dir)
            }
            if fleet.count < nodes, fleet.allSynced(following: commandEndpoints[leader]) { try fleet.add(min(50, nodes - fleet.count)) }
            guard Clock.monotonicNanoseconds() < joined else {
                throw BenchError("\(nodes) nodes did not all join within \(joinSeconds) s: \(fleet.progress) "
                    + "(leader c\(leader); coordinator logs kept in \(dir))")
            }
            try fleet.pump(milliseconds: 20)
        }
        return try Self.trials(settings, setting, cluster: cluster, leader: leader, nodes: fleet, count: nodes, trials: trials,
                          context: context, directory: dir)
    }

    /// `trials` leader kills with `count` nodes joined and following `leader`: a client claims node
    /// 0's camera (registered by the fleet) and then stops and starts it every 50 ms (2 ms with 3
    /// nodes), following the leader; each trial kills the leader at a random phase of its lease
    /// renewal and measures etcd's announcement, the first ack and every node following, and counts
    /// the registrations and snapshot requests the nodes sent; the killed coordinator then comes
    /// back as a standby. Rows and target checks for `setting` (`label` names the nodes).
    static func trials(_ settings: BenchSettings, benchmark: String = "ha-failover", _ setting: Setting, cluster: HACoordinators, leader: Int, nodes fleet: any FailoverNodes,
                       count nodes: Int, label nodesLabel: String? = nil, trials: Int, context: ZMQContext, directory dir: String) throws -> ([BenchRow], [TargetCheck], [String]) {
        let commandEndpoints = cluster.coordinators.map(\.commandEndpoint)
        let node = SimulatedNode.id(0)
        let setup = try cluster.dealer(context, commandEndpoints[leader])
        defer { setup.close() }
        // Acknowledged before the client starts: the client's first stop, from another DEALER, could
        // otherwise reach the leader before the session is configured ("has no capture session").
        try setup.pipeline(SimulatedNode.claim(node).map { ($0, node) }, window: 1)
        let client = try LeaderFollowingClient(context: context, commandEndpoints: commandEndpoints, node: node, target: leader,
                                               intervalMilliseconds: nodes > 3 ? 50 : 2, curve: cluster.curve)
        defer { client.close() }
        let watch = EtcdLeaderWatch(endpoints: cluster.etcd.endpoints, settings: try cluster.etcd.clientSettings(),
                                    election: "\(cluster.prefix)/leader")
        defer { watch.stop() }
        let label = "\(setting.label), \(nodesLabel ?? "\(nodes) nodes")"

        var etcdAnnounced = LatencyRecorder(), firstAck = LatencyRecorder(), allFollow = LatencyRecorder()
        var followAfterAck = LatencyRecorder()
        var registrations: [Int] = [], snapshots: [Int] = [], reconnections: [Int] = []
        var notes: [String] = []
        let renewal = Int(setting.leaseSeconds * 1000 / 3)
        var expectedTerm: UInt64?
        func pump(_ milliseconds: Int) throws {
            let until = Clock.monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
            repeat {
                _ = try client.pump(milliseconds: 0)
                try fleet.pump(milliseconds: 1)
            } while Clock.monotonicNanoseconds() < until
        }
        for trial in 0..<trials {
            settings.progress("\(benchmark) (\(label)): trial \(trial + 1)/\(trials)")
            // Steady state: answers from the current leader, then a random phase of its lease renewal.
            try pump(300 + Int.random(in: 0..<renewal))
            let settle = Clock.monotonicNanoseconds() + 20_000_000_000
            while client.lastAnswer.map({ !$0.accepted || Clock.monotonicNanoseconds() - $0.at > 300_000_000 }) ?? true {
                guard Clock.monotonicNanoseconds() < settle else {
                    throw BenchError("trial \(trial + 1): no leader answers the client within 20 s before the kill "
                        + "(last answer: \(client.lastAnswer.map { "\($0.accepted ? "ack" : "refusal") from c\($0.coordinator) in term \($0.term)" } ?? "none"), "
                        + "\(client.refused) refused; "
                        + "coordinator logs kept in \(dir))")
                }
                try pump(20)
            }
            let last = client.lastAnswer!
            if let expected = expectedTerm, last.term != expected {
                throw UncausedLeadershipMove("\(label), before trial \(trial + 1): term \(expected) → \(last.term), "
                    + "c\(last.coordinator) leads (coordinator logs kept in \(dir))")
            }
            let victim = last.coordinator, oldTerm = last.term
            try fleet.watch(leaving: commandEndpoints[victim])
            let killed = cluster.kill(victim)
            var ackAt: UInt64?, newLeader: Int?, followedAll: UInt64?
            let deadline = killed + 30_000_000_000
            while ackAt == nil || watch.firstLeader(after: oldTerm) == nil || followedAll == nil {
                guard Clock.monotonicNanoseconds() < deadline else {
                    throw BenchError("trial \(trial + 1): no new leader within 30 s of the kill (ack \(ackAt != nil), "
                        + "nodes following it \(newLeader.map { "\(fleet.following(commandEndpoints[$0]))" } ?? "?")/\(nodes), "
                        + "etcd \(watch.firstLeader(after: oldTerm) != nil)); coordinator logs kept in \(dir)")
                }
                for answer in try client.pump(milliseconds: 0) where ackAt == nil && answer.term > oldTerm {
                    ackAt = answer.at
                    newLeader = answer.coordinator
                    if !answer.accepted { notes.append("\(label) trial \(trial + 1): the new leader refused the command") }
                }
                try fleet.pump(milliseconds: 1)
                followedAll = newLeader.flatMap { fleet.followedAll(commandEndpoints[$0]) }
            }
            // Whatever the failover still causes shows within a second.
            try pump(1000)
            let sent = try fleet.sentSinceWatch()
            registrations.append(sent.registrations)
            snapshots.append(sent.snapshotRequests)
            reconnections.append(sent.reconnections)
            let etcdAt = watch.firstLeader(after: oldTerm)!
            let followed = max(followedAll!, killed)
            expectedTerm = client.lastAnswer?.term
            /// Milliseconds from `start` to `end` (negative when `end` came first).
            func milliseconds(_ start: UInt64, _ end: UInt64) -> Double { (Double(end) - Double(start)) / 1e6 }
            if etcdAt < killed {
                // The client's last answer was from the old leader, yet etcd named another before the kill.
                throw UncausedLeadershipMove("\(label), trial \(trial + 1): etcd announced a leader after term \(oldTerm) "
                    + String(format: "%.0f", -milliseconds(killed, etcdAt))
                    + " ms before the kill (coordinator logs kept in \(dir))")
            }
            etcdAnnounced.record(from: killed, to: etcdAt)
            firstAck.record(from: killed, to: ackAt!)
            allFollow.record(from: killed, to: followed)
            followAfterAck.record(from: ackAt!, to: max(followed, ackAt!))
            settings.progress(String(format: "%@: c%d → c%d: etcd %.0f ms, first ack %.0f ms, all %d nodes %.0f ms; "
                                     + "registrations %d, snapshot requests %d, reconnections %d", benchmark,
                                     victim, newLeader ?? -1, milliseconds(killed, etcdAt), milliseconds(killed, ackAt!),
                                     nodes, milliseconds(killed, followed), sent.registrations, sent.snapshotRequests, sent.reconnections))
            // The killed coordinator comes back as a standby (it rebuilds from etcd), and the nodes to it,
            // before the next trial: each starts from steady state.
            try cluster.restart(victim)
            let back = Clock.monotonicNanoseconds() + 30_000_000_000
            while try cluster.leads(victim, timeoutMilliseconds: 20) == nil {
                guard Clock.monotonicNanoseconds() < back else {
                    throw BenchError("c\(victim) did not come back (coordinator logs kept in \(dir))")
                }
                try pump(20)
            }
            try cluster.waitUntilSettled(victim, connections: nodes, serving: pump)
        }
        let rows = [
            BenchRow(benchmark: benchmark, scenario: "\(label): kill -9 → etcd announces the next leader (floor)",
                     latency: etcdAnnounced.summary),
            BenchRow(benchmark: benchmark, scenario: "\(label): kill -9 → first ack by the new leader",
                     latency: firstAck.summary, floorP50: etcdAnnounced.summary.p50),
            BenchRow(benchmark: benchmark, scenario: "\(label): kill -9 → every node follows the new leader",
                     latency: allFollow.summary, floorP50: etcdAnnounced.summary.p50),
            BenchRow(benchmark: benchmark, scenario: "\(label): first ack → every node follows (0: all followed before it)",
                     latency: followAfterAck.summary),
        ]
        var checks: [TargetCheck] = []
        if let p50 = setting.firstAckP50 {
            checks.append(TargetCheck(figure: "HA failover (\(label)): first ack p50 of \(trials)", measured: firstAck.summary.p50,
                                      .atMost, p50 * 1000, unit: .microseconds, basis: "failover by suspicion, not lease expiry"))
        }
        if let max = setting.firstAckMax {
            checks.append(TargetCheck(figure: "HA failover (\(label)): first ack max of \(trials)", measured: firstAck.summary.max,
                                      .atMost, max * 1000, unit: .microseconds, basis: "failover by suspicion, not lease expiry"))
        }
        if nodes > 3 {
            checks.append(TargetCheck(figure: "HA failover (\(label)): every node follows, most after the first ack in a trial",
                                      measured: followAfterAck.summary.max, .atMost, Self.followAfterAckMilliseconds * 1000,
                                      unit: .microseconds, basis: "a leader change is not a restart (SPEC K7)"))
        }
        checks.append(TargetCheck(figure: "HA failover (\(label)): registrations caused, most in a trial",
                                  measured: Double(registrations.max() ?? 0), .atMost, 0, unit: .count, basis: "SPEC K7: no re-registration, no snapshot"))
        checks.append(TargetCheck(figure: "HA failover (\(label)): snapshot requests caused, most in a trial",
                                  measured: Double(snapshots.max() ?? 0), .atMost, 0, unit: .count, basis: "SPEC K7: no re-registration, no snapshot"))
        checks.append(TargetCheck(figure: "HA failover (\(label)): connections reopened, most in a trial",
                                  measured: Double(reconnections.max() ?? 0), .atMost, 0, unit: .count,
                                  basis: "one connection a node per coordinator, open before the leader changes"))
        if client.refused > 0 {
            let reasons = client.refusals.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: "; ")
            notes.append("\(label): \(client.refused) commands refused (not NOT_LEADER): \(reasons)")
        }
        return (rows, checks, notes)
    }
}
