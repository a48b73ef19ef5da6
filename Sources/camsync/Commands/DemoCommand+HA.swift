import CamsyncClient
import CamsyncCoordinator
import CamsyncProcessLab
import CamsyncTopology
import CamsyncPolicy
import Foundation
#if canImport(Glibc)
import Glibc
import CamsyncCoordinatorCore
#endif

/// `camsync demo --ha` (`make run-ha`): the same story on three coordinators over a 3-member etcd
/// cluster (SPEC K6). After `failoverAfterStep` the leader is killed (kill -9); the narration names
/// the new leader, the time from the kill to the next acknowledged action, and that every camera kept
/// its holder and its last token, so grants go on in token order (C8).
extension DemoCommand {
    /// After Camera.app returned ipad-1's camera to the call (tokens 1–3 granted on ipad-1/builtin).
    static let failoverAfterStep = 7

    /// The demo's cluster with `etcd:` (three members) and three coordinators on free loopback ports.
    static func highAvailabilityTopology(settings: Topology.Settings, nodes: [Topology.Node]) throws -> Topology {
        let coordinators = ["c1", "c2", "c3"].map { name in
            Topology.Coordinator(name: name, commands: "tcp://127.0.0.1:\(LoopbackPorts.free())",
                                 events: "tcp://127.0.0.1:\(LoopbackPorts.free())")
        }
        let topology = Topology(name: "demo", etcd: .init(members: 3, leaseSeconds: 2), coordinators: coordinators,
                                settings: settings, nodes: nodes)
        try topology.validate()
        return topology
    }

    /// The cameras' holders and last tokens, as the leader has them.
    static func cameras(_ cluster: LocalCluster) throws -> [CameraSystemID: (holder: AppID?, token: UInt64)] {
        try cluster.coordinatorState().state.cameraSystems.mapValues { ($0.holder, $0.lastToken.value) }
    }

    /// The name of the coordinator that leads now.
    static func leaderName(_ cluster: LocalCluster) throws -> String {
        let endpoint = try cluster.leaderCommandEndpoint()
        return cluster.topology.allCoordinators.first { LocalCluster.localCommands($0) == endpoint }
            .map { cluster.topology.processName($0) } ?? endpoint
    }

    /// What the failover showed.
    struct Failover {
        var killed: String
        var leader: String
        var millisecondsToFirstAck: Int
        var camerasKept: Bool
        var detail: [String]
        /// How the old leader's key went: a standby's suspicion (its pulse stopped), or the lease's expiry.
        var takeover: Takeover
    }

    enum Takeover: Equatable {
        /// `by` stopped hearing the leader's pulse for `silentMilliseconds` and revoked its lease.
        case suspicion(by: String, silentMilliseconds: Int?)
        /// No standby revoked the lease: etcd expired it after its TTL.
        case leaseExpiry

        var name: String { if case .suspicion = self { "suspicion" } else { "leaseExpiry" } }
    }

    /// The pulse and suspicion window the demo's coordinators run with (the coordinator's defaults).
    static var highAvailabilityDefaults: HighAvailabilitySettings { HighAvailabilitySettings(etcd: [], name: "") }

    /// How a standby takes over, before the kill.
    static func takeoverPlan(killed: String, leaseSeconds: Int64) -> String {
        let ha = highAvailabilityDefaults
        return "The standbys hear \(killed)'s pulse every \(ha.pulseMilliseconds) ms; one that hears nothing for "
            + "\(ha.suspicionMilliseconds) ms revokes \(killed)'s lease on etcd, and a standby leads without waiting "
            + "for the lease to expire (\(leaseSeconds) s)."
    }

    /// What the survivors' logs say happened: which standby revoked the killed leader's lease, if one did.
    static func takeover(_ cluster: LocalCluster, killed: String) -> Takeover {
        for name in cluster.topology.coordinatorProcessNames where name != killed {
            guard let log = try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8),
                  let line = log.split(separator: "\n").last(where: { $0.contains("the leader's pulse stopped: revoking its lease") })
            else { continue }
            let silent = line.firstMatch(of: /silentMs=(\d+)/).flatMap { Int($0.1) }
            return .suspicion(by: name, silentMilliseconds: silent)
        }
        return .leaseExpiry
    }

    /// What happened, after the kill.
    static func takeoverNarration(_ failover: Failover, leaseSeconds: Int64) -> String {
        let how: String
        switch failover.takeover {
        case .suspicion(let by, let silent):
            how = "\(by) stopped hearing \(failover.killed)'s pulse" + (silent.map { " (silent \($0) ms)" } ?? "")
                + " and revoked its lease, without waiting for it to expire (\(leaseSeconds) s)"
        case .leaseExpiry:
            how = "\(failover.killed)'s lease expired (\(leaseSeconds) s): no standby had heard its pulse to suspect it"
        }
        return "\(how); \(failover.leader) won the election, read the log to its end and leads now. The next action was "
            + "acknowledged \(failover.millisecondsToFirstAck) ms after the kill."
    }

    /// Kills the leader, then runs `next` (the story's next action) and times its acknowledgement;
    /// checks the cameras against what the old leader had.
    func failover(_ cluster: LocalCluster, next: () throws -> String) throws -> (Failover, String) {
        let killed = try Self.leaderName(cluster)
        let before = try Self.cameras(cluster)
        let leaseSeconds = cluster.topology.etcd?.leaseSeconds ?? Self.highAvailabilityDefaults.leaseSeconds
        if !json {
            say("*** The leader, \(killed), is killed (kill -9). \(Self.takeoverPlan(killed: killed, leaseSeconds: leaseSeconds)) ***")
            say("   $ kill -9 <pid of \(killed)>")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        cluster.signalCoordinator(named: killed, SIGKILL)
        let outcome = try next()
        let elapsed = Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        let leader = try Self.leaderName(cluster)
        let after = try Self.cameras(cluster)
        var detail: [String] = []
        var kept = true
        for (system, old) in before.sorted(by: { $0.key < $1.key }) {
            let now = after[system]
            let same = now?.holder == old.holder && (now?.token ?? 0) >= old.token
            kept = kept && same
            detail.append("\(system): held by \(old.holder?.description ?? "nobody"), token \(old.token) → "
                          + "\(now?.holder?.description ?? "nobody"), token \(now?.token ?? 0)\(same ? "" : "  ← CHANGED")")
        }
        return (Failover(killed: killed, leader: leader, millisecondsToFirstAck: elapsed, camerasKept: kept, detail: detail,
                         takeover: Self.takeover(cluster, killed: killed)), outcome)
    }

    func narrate(_ failover: Failover, leaseSeconds: Int64) {
        let happened = Self.takeoverNarration(failover, leaseSeconds: leaseSeconds)
        if json {
            let object: [String: Any] = ["failover": ["killed": failover.killed, "leader": failover.leader,
                                                      "millisecondsToFirstAck": failover.millisecondsToFirstAck,
                                                      "camerasKept": failover.camerasKept, "cameras": failover.detail,
                                                      "takeover": failover.takeover.name, "narration": happened]]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                say(String(decoding: data, as: UTF8.self))
            }
            return
        }
        say("*** \(happened) [K6 K7 C8] ***")
        say("   Every camera kept its holder and its last token, so the next grants go on in token order:"
            + (failover.camerasKept ? "" : " NOT SO:"))
        for line in failover.detail { say("     \(line)") }
        say("")
    }
}
