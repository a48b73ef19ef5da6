import CamsyncClient
import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Which coordinators nodes believe, across real processes: each coordinator has a CURVE key pair of its own, and nodes
/// believe only the coordinators their `coordinators.txt` lists. Coordinator c3 was removed from the
/// nodes' list but still runs (its etcd access intact), and is made to lead. Its endpoints stay in
/// the nodes' `--coordinator`/`--events` lists: the nodes (Swift and the C agent) never connect to
/// them, so its heartbeats and batches never reach them, and the standbys' NOT_LEADER answers naming
/// it are ignored. Once a coordinator they believe leads again, they follow it and the claims go on;
/// nothing acknowledged is lost.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(4)))
struct CoordinatorTrustTests {
    typealias HA = HighAvailabilityTests

    static func log(_ cluster: LocalCluster, _ name: String) -> String {
        (try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8)) ?? ""
    }

    /// Which coordinator leads, as c1 (a coordinator the admin client believes) names it.
    static func leaderName(_ cluster: LocalCluster) -> String? {
        guard let status = try? cluster.coordinatorClient(named: "c1") else { return nil }
        defer { status.close() }
        do { _ = try status.snapshot(timeoutMilliseconds: 1000); return "c1" } catch let error as ClientError {
            return error.refusal?.leader?.name
        } catch { return nil }
    }

    @Test("nodes ignore a coordinator removed from their trusted list, even while it leads, and follow the ones they believe")
    func removedCoordinatorIsNotBelieved() async throws {
        // The C agent under the sanitizers when `make agent-asan` built it (`make test` does first).
        let sanitized = DisplayAgentTests.repository + "/.build-agent/camsync-display-agent-asan"
        let prepare: (LocalCluster) -> Void = { cluster in
            if FileManager.default.isExecutableFile(atPath: sanitized) { cluster.displayAgentExecutable = sanitized }
        }
        try await HA.withHACluster(curve: true, prepare: prepare) { cluster in
            // c1 or c2 leads (c3 hands over if it won the first election), then c3 is removed from the
            // nodes' list: they restart on it.
            if try HA.leader(cluster) == "c3" { try CertificateRotationTests.restart("c3", cluster) }
            cluster.nodeTrust = ["c1", "c2"]
            for node in cluster.topology.nodes.map(\.id) {
                cluster.nodes[node]?.signal(SIGTERM)
                _ = cluster.nodes[node]?.stop(grace: 10)
                try cluster.startNode(node)
            }
            try cluster.waitUntilJoined(timeout: 30)
            for node in HA.devices {
                #expect(Self.log(cluster, node).contains("not connecting to endpoints of no trusted coordinator"),
                        "\(node) leaves c3's endpoints alone")
            }
            let streams = try ClaimStreams(cluster)
            try cluster.waitUntil(timeout: 30, what: "claims acknowledged by a trusted leader") { streams.acked >= 6 }

            // c3 leads: c1 and c2 hand over as they stop (c2 first, so c3 is the only one left), then
            // come back as standbys that name c3 in their NOT_LEADER answers.
            for name in ["c2", "c1"] {
                cluster.coordinators[name]?.signal(SIGTERM)
                _ = cluster.coordinators[name]?.stop(grace: 10)
            }
            try cluster.waitUntil(timeout: 30, what: "c3 to lead") {
                let client = try cluster.coordinatorClient(named: "c3")
                defer { client.close() }
                return (try? client.snapshot(timeoutMilliseconds: 1000)) != nil
            }
            for name in ["c1", "c2"] { try cluster.startCoordinator(named: name) }
            try cluster.waitUntil(timeout: 30, what: "the standbys to name c3 as the leader") { Self.leaderName(cluster) == "c3" }
            try cluster.waitUntil(timeout: 30, what: "every node to ignore a NOT_LEADER answer naming c3") {
                HA.devices.allSatisfy { Self.log(cluster, $0).contains("ignored: a coordinator whose key this node does not trust") }
            }
            let whileC3Led = streams.acked

            // c3 hands over to a coordinator the nodes believe: they follow it, and the claims go on.
            cluster.coordinators["c3"]?.signal(SIGTERM)
            _ = cluster.coordinators["c3"]?.stop(grace: 10)
            try cluster.waitUntil(timeout: 60, what: "claims acknowledged once c1 or c2 leads again") { streams.acked >= whileC3Led + 6 }
            streams.stopAll()

            for node in HA.devices + ["display-1"] {
                let text = Self.log(cluster, node)
                let followedC3 = text.split(separator: "\n").contains {
                    $0.contains("following the leader") && ($0.contains("leader=c3") || $0.contains("leader c3"))
                }
                #expect(!followedC3, "\(node) never followed c3")
            }
            let agentLog = Self.log(cluster, "display-1")
            #expect(agentLog.contains("not connecting to"), "the C agent leaves c3's endpoints alone too")
            #expect(!agentLog.contains("AddressSanitizer") && !agentLog.contains("runtime error:"), "\(agentLog.suffix(2000))")
            // Nothing acknowledged is lost (claims made while only c3 led fail: no leader the nodes believe).
            try await streams.expectNothingLost(failuresAllowed: true)
            let ignored = HA.devices.map { Self.log(cluster, $0).components(separatedBy: "does not trust").count - 1 }
            print("c3 led untrusted: \(ignored) NOT_LEADER redirections ignored per node; \(streams.acked) claims acknowledged")
        }
    }
}
}
