import CamsyncCoordinator
import CamsyncEtcd
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// etcd's security across real processes: the HA cluster's etcd runs with mutual TLS and auth (a role per
/// camsync cluster). A real `camsync coordinator` holding a valid certificate of *another* camsync
/// cluster, pointed at this cluster's prefix, is refused by etcd at every step: it never leads,
/// writes nothing, and the real leader keeps serving.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(4)))
struct EtcdIntruderTests {
    @Test("a coordinator with another cluster's valid certificate cannot touch this cluster's prefix")
    func otherClustersCoordinator() async throws {
        try await HighAvailabilityTests.withHACluster { cluster in
            let etcd = try #require(cluster.etcd)
            #expect(cluster.etcdEndpoints.allSatisfy { $0.hasPrefix("https://") }, "\(cluster.etcdEndpoints)")
            let leader = try HighAvailabilityTests.leader(cluster)
            // Another camsync cluster on the same etcd: its coordinator's user holds /camsync/other only.
            try await etcd.configureAuth([EtcdAccessGrant(prefix: "/camsync/other", role: "camsync-other", users: ["other.c9"])])
            let certificates = try #require(etcd.certificates)
            let files = try certificates.client("other.c9")
            let electionBefore = try await cluster.withEtcdClient { try await $0.range(prefix: cluster.etcdPrefix + "/leader/") }

            var settings = CoordinatorSettings.defaults
            settings.commandEndpoint = "tcp://127.0.0.1:\(LoopbackPorts.free())"
            settings.eventEndpoint = "tcp://127.0.0.1:\(LoopbackPorts.free())"
            settings.highAvailability = HighAvailabilitySettings(
                etcd: try cluster.etcdEndpoints.map { try EtcdEndpoint(parsing: $0) }, name: "c9", prefix: cluster.etcdPrefix)
            settings.highAvailability?.etcdTLS = EtcdClientTLS(trustedCA: certificates.trustedCA, certificate: files.certificate,
                                                               privateKey: files.privateKey)
            let log = cluster.logPath("intruder")
            let intruder = try ManagedProcess(name: "intruder", executable: cluster.executable,
                                              arguments: CoordinatorLaunch(settings: settings).arguments, logPath: log)
            defer { intruder.stop(grace: 3) }
            try cluster.waitUntil(timeout: 30, what: "etcd to refuse the intruder's read of the log and its campaign") {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                return text.contains("etcd denied: get \(cluster.etcdPrefix)/snapshot") && text.contains("etcd denied: campaign")
            }
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            print("intruder's log (etcd's answer):\n" + text.split(separator: "\n").filter { $0.contains("permission denied") }
                .prefix(2).joined(separator: "\n"))

            // The real cluster: same leader, still acknowledging claims; the intruder has no election key.
            let control = try cluster.controlClient("ipad-1")
            defer { control.close() }
            let app = AppID(device: NodeID("ipad-1"), bundleID: "com.example.videocall")
            #expect(try control.act(.openFullScreen(app, trigger: .user), timeoutMilliseconds: 20_000) > 0)
            #expect(try HighAvailabilityTests.leader(cluster) == leader)
            let electionAfter = try await cluster.withEtcdClient { try await $0.range(prefix: cluster.etcdPrefix + "/leader/") }
            // A real coordinator may campaign again meanwhile (a loaded host can let its lease lapse),
            // so the candidates are compared by name: the real ones, and no other.
            let candidates = try electionAfter.keyValues.map { try Camsync_V1_CoordinatorAddress(serializedBytes: $0.value).name }
            let real = try Set(electionBefore.keyValues.map { try Camsync_V1_CoordinatorAddress(serializedBytes: $0.value).name })
                .union(["c1", "c2", "c3"])
            #expect(!candidates.isEmpty && Set(candidates).isSubset(of: real), "only the real coordinators campaign: \(candidates)")
            #expect(!electionAfter.keyValues.contains { String(decoding: $0.value, as: UTF8.self).contains("c9") })
        }
    }
}
}
