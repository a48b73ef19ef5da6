import CamsyncClient
import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `camsync ctl status` on a real HA cluster (SPEC K6): every coordinator as it says of itself, every
/// etcd member as its Maintenance.Status says, the leader named on the first line; after the leader
/// is killed, the new one.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)))
struct HAStatusTests {
    @Test("ctl status and the web view's HA panel name the leader, list every coordinator and etcd member, and follow a failover")
    func statusShowsCoordinatorsAndEtcd() async throws {
        let http = Dictionary(uniqueKeysWithValues: ["c1", "c2", "c3"].map { ($0, "127.0.0.1:\(TestTopology.freeTCPPort())") })
        try await HighAvailabilityTests.withHACluster(prepare: { cluster in
            for (name, address) in http { cluster.coordinatorArgumentsByName[name] = ["--http", address] }
        }) { cluster in
            // etcd speaks mutual TLS only: ctl shows the members' status with a certificate etcd accepts (root's).
            let tls = try #require(try cluster.etcdClientTLS(as: "root"))
            let endpoints = ["--coordinator", cluster.commandEndpoint, "--events", cluster.eventEndpoint,
                             "--etcd-ca", tls.trustedCA, "--etcd-cert", tls.certificate, "--etcd-key", tls.privateKey]
            let first = try Self.status(endpoints)
            let ha = try #require(first.highAvailability)
            #expect(Set(ha.coordinators.map(\.name)) == ["c1", "c2", "c3"])
            let leading = ha.coordinators.filter { $0.role == "leading" }
            #expect(leading.count == 1, "exactly one coordinator leads: \(ha.coordinators)")
            let leader = try #require(leading.first)
            #expect(ha.leader == leader.name && leader.term == first.term)
            for coordinator in ha.coordinators {
                #expect(coordinator.answeredInMilliseconds != nil && coordinator.lag != nil, "\(coordinator)")
                #expect(["leading", "standby"].contains(coordinator.role), "\(coordinator)")
            }
            #expect(ha.etcd.count == 3)
            #expect(ha.etcd.filter(\.isLeader).count == 1, "one raft leader: \(ha.etcd)")
            #expect(ha.etcd.allSatisfy { $0.reachable && $0.raftIndex > 0 && $0.databaseSizeBytes > 0 && $0.errors.isEmpty }, "\(ha.etcd)")

            let text = try runCamsync(["ctl", "status"] + endpoints)
            let firstLine = String(text.prefix { $0 != "\n" })
            #expect(firstLine.hasPrefix("leader \(leader.name) in term \(leader.term)"), "\(firstLine)")
            #expect(firstLine.contains("etcd 3/3 members healthy"), "\(firstLine)")
            #expect(text.contains("ETCD MEMBER") && text.contains("COORDINATOR"), "\(text)")

            // With -f the run directory's tls/ is found as keys/ is: no --etcd-* needed.
            let byTopology = ["-f", "\(cluster.runDirectory)/topology.yaml", "--run-dir", cluster.runDirectory]
            let found = try runCamsync(["ctl", "status"] + byTopology)
            #expect(String(found.prefix { $0 != "\n" }).contains("etcd 3/3 members healthy"), "\(found.prefix(2_000))")
            #expect(found.components(separatedBy: "\nCoordinators\n").count == 2 && !found.contains("\nCoordinator\n"),
                    "one Coordinators section: \(found)")

            // Every coordinator's page shows the same panel.
            for address in http.values {
                try cluster.waitUntil(timeout: 15, what: "the HA panel at \(address) to name \(leader.name)") {
                    try Self.panel(address)?.leader == leader.name
                }
            }

            cluster.signalCoordinator(named: leader.name, SIGKILL)
            var after: HighAvailabilityReport?
            try cluster.waitUntil(timeout: 30, what: "another coordinator to lead") {
                let report = try? Self.status(endpoints).highAvailability
                after = report
                return report?.leader.map { $0 != leader.name } ?? false
            }
            let next = try #require(after)
            #expect(next.coordinators.filter { $0.role == "leading" }.count == 1)
            #expect(next.coordinators.first { $0.endpoint == leader.endpoint }?.role == "unreachable",
                    "the killed leader is listed, unreachable: \(next.coordinators)")
            // By its name, which the topology knows (and, with CURVE, coordinators.txt).
            let named = try Self.status(byTopology).highAvailability
            #expect(named?.coordinators.first { $0.endpoint == leader.endpoint }.map { ($0.name, $0.role) } ?? ("?", "?")
                    == (leader.name, "unreachable"), "\(named?.coordinators ?? [])")
            #expect(next.coordinators.first { $0.role == "leading" }.map { $0.term > leader.term } == true)

            // A survivor's page follows the failover: the new leader, the old one unreachable.
            let survivor = try #require(http.first { $0.key != leader.name && $0.key != next.leader }?.value)
            try cluster.waitUntil(timeout: 15, what: "the HA panel at \(survivor) to name the new leader") {
                guard let panel = try Self.panel(survivor) else { return false }
                return panel.leader == next.leader
                    && panel.coordinators.contains { $0.endpoint == leader.endpoint && $0.name == leader.name && $0.role == "unreachable" }
            }
            guard WebViewTests.chromium != nil else { return }
            // `?until`: the page stops following at the survivor's sequence, so that Chromium goes idle and dumps its DOM.
            let sequence = try Self.sequence(survivor)
            let browser = try Browser(url: "http://\(survivor)/?until=\(sequence)", directory: cluster.runDirectory)
            defer { browser.reap() }
            let dom = try browser.dom(timeout: 60)
            #expect(dom.contains("id=\"ha\" data-leader=\"\(next.leader ?? "?")\""), "the page's panel names the new leader")
            #expect(dom.contains("class=\"coordinator\" data-name=\"\(next.leader ?? "?")\" data-role=\"leading\""))
            #expect(dom.contains("data-role=\"unreachable\""), "the killed leader is listed unreachable")
            #expect(dom.components(separatedBy: "class=\"etcd-member\"").count == 4, "three etcd members")
        }
    }

    /// The HA panel's report in a coordinator's `/state.json`, once the watcher has gathered one.
    static func panel(_ address: String) throws -> HighAvailabilityReport? {
        struct Whole: Decodable {
            struct View: Decodable { var report: HighAvailabilityReport }
            var highAvailability: View?
        }
        let body = try HTTPScrape.get("http://\(address)/state.json").body
        return (try? JSONDecoder().decode(Whole.self, from: Data(body.utf8)))?.highAvailability?.report
    }

    static func sequence(_ address: String) throws -> UInt64 {
        struct Whole: Decodable {
            struct View: Decodable { var sequence: UInt64 }
            var view: View
        }
        return try JSONDecoder().decode(Whole.self, from: Data(try HTTPScrape.get("http://\(address)/state.json").body.utf8)).view.sequence
    }

    static func status(_ endpoints: [String]) throws -> StatusReport {
        let output = try runCamsync(["ctl", "status"] + endpoints + ["--json", "--timeout", "3"])
        return try JSONDecoder().decode(StatusReport.self, from: Data(output.utf8))
    }
}
}
