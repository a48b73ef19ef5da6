import CamsyncClient
import CamsyncLab
import CamsyncPolicy
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `camsync demo --ha` (`make run-ha`): the same story on three coordinators over a 3-member etcd
/// cluster (SPEC K6). After `failoverAfterStep` the leader is killed (kill -9); the narration names
/// the new leader, the time from the kill to the next acknowledged action, and that every camera kept
/// its holder and its last token, so grants go on in token order (C8).
extension DemoCommand {
    /// After Camera.app returned ipad-1's camera to the call (tokens 1–3 granted on ipad-1/builtin).
    static let failoverAfterStep = 7

    /// The demo's topology with `etcd:` and three coordinators on free loopback ports.
    static func highAvailabilityYAML() -> String {
        let coordinators = ["c1", "c2", "c3"].map { name in
            "  - { name: \(name), commands: tcp://127.0.0.1:\(LoopbackPorts.free()), events: tcp://127.0.0.1:\(LoopbackPorts.free()) }"
        }.joined(separator: "\n")
        return topologyYAML.replacingOccurrences(of: "coordinator: { commands: COMMANDS, events: EVENTS }", with: """
            etcd: { members: 3, leaseSeconds: 2 }
            coordinators:
            \(coordinators)
            """)
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
    }

    /// Kills the leader, then runs `next` (the story's next action) and times its acknowledgement;
    /// checks the cameras against what the old leader had.
    func failover(_ cluster: LocalCluster, next: () throws -> String) throws -> (Failover, String) {
        let killed = try Self.leaderName(cluster)
        let before = try Self.cameras(cluster)
        if !json {
            say("*** The leader, \(killed), is killed (kill -9). A standby takes over when its lease on etcd expires (2 s). ***")
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
        return (Failover(killed: killed, leader: leader, millisecondsToFirstAck: elapsed, camerasKept: kept, detail: detail), outcome)
    }

    func narrate(_ failover: Failover) {
        if json {
            let object: [String: Any] = ["failover": ["killed": failover.killed, "leader": failover.leader,
                                                      "millisecondsToFirstAck": failover.millisecondsToFirstAck,
                                                      "camerasKept": failover.camerasKept, "cameras": failover.detail]]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                say(String(decoding: data, as: UTF8.self))
            }
            return
        }
        say("*** \(failover.leader) leads now (it was a standby following the log on etcd); the next action was "
            + "acknowledged \(failover.millisecondsToFirstAck) ms after the kill. [K6 K7 C8] ***")
        say("   Every camera kept its holder and its last token, so the next grants go on in token order:"
            + (failover.camerasKept ? "" : " NOT SO:"))
        for line in failover.detail { say("     \(line)") }
        say("")
    }
}
