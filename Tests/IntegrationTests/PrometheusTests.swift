import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real Prometheus server (Debian's `prometheus`, `make deps`) scraping a live HA cluster's
/// coordinators with deploy/prometheus's rules: through its HTTP API, exactly one coordinator leads,
/// and killing the leader moves the leadership to another.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)))
struct PrometheusTests {
    static let prometheus = ["/usr/bin/prometheus"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("Prometheus sees exactly one leading coordinator, and another after the leader is killed",
          .enabled(if: prometheus != nil, "Debian's prometheus is not installed here (`make deps` installs it)"))
    func oneLeaderThroughPrometheus() async throws {
        let http = Dictionary(uniqueKeysWithValues: ["c1", "c2", "c3"].map { ($0, "127.0.0.1:\(TestTopology.freeTCPPort())") })
        try await HighAvailabilityTests.withHACluster(prepare: { cluster in
            for (name, address) in http { cluster.coordinatorArgumentsByName[name] = ["--http", address] }
        }) { cluster in
            let server = try PrometheusServer(targets: http.values.sorted(), directory: cluster.runDirectory)
            defer { server.stop() }

            // Exactly one coordinator leads, as Prometheus scraped it and as the recording rule sums it.
            // (Each coordinator is scraped on its own schedule: wait for the three answers, not for the first.)
            var leading: [String] = []
            var standbys: [String] = []
            try cluster.waitUntil(timeout: 40, what: "Prometheus to scrape one leading coordinator and two standbys") {
                leading = try server.instances("camsync_coordinator_leading == 1")
                standbys = try server.instances("camsync_coordinator_leading == 0")
                let sum = try server.value("camsync:coordinators_leading:sum")
                return leading.count == 1 && sum == 1 && standbys.count == 2
            }
            let before = try #require(leading.first)
            let leader = try #require(http.first { $0.value == before }?.key)
            #expect(Set(standbys + leading) == Set(http.values), "the other two are standbys")
            #expect(try server.ruleHealth().allSatisfy { $0 == "ok" }, "every rule of deploy/prometheus evaluates")
            // The leader timed its etcd writes (the nodes' registrations went through the log); a standby wrote none.
            #expect((try HTTPScrape.metrics(before)["camsync_log_write_seconds_count"] ?? 0) >= 1)
            #expect((try HTTPScrape.metrics(try #require(standbys.first))["camsync_log_write_seconds_count"] ?? 0) == 0)

            cluster.signalCoordinator(named: leader, SIGKILL)
            var after: [String] = []
            try cluster.waitUntil(timeout: 40, what: "Prometheus to scrape another leader") {
                after = try server.instances("camsync_coordinator_leading == 1 and on(instance) up == 1")
                return after.count == 1 && after != [before]
            }
            #expect(try server.instances("up{job=\"camsync-coordinator\"} == 0") == [before], "the killed leader is down")
        }
    }
}
}

/// One Prometheus process on a free port with a temporary database, scraping `targets` every second
/// with deploy/prometheus/camsync-rules.yml; its output goes to a file; always stopped and reaped.
final class PrometheusServer {
    let process = Process()
    let address: String

    init(targets: [String], directory: String) throws {
        address = "127.0.0.1:\(TestTopology.freeTCPPort())"
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/prometheus/camsync-rules.yml").path
        let config = """
            global: { scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 900ms }
            rule_files: ["\(rules)"]
            scrape_configs:
              - job_name: camsync-coordinator
                static_configs: [ { targets: [\(targets.map { "\"\($0)\"" }.joined(separator: ", "))] } ]
            """
        try config.write(toFile: "\(directory)/prometheus.yml", atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: "\(directory)/prometheus.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/prometheus.log"))
        process.executableURL = URL(fileURLWithPath: try #require(EtcdBackedTests.PrometheusTests.prometheus))
        process.arguments = ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/prometheus-data",
                             "--web.listen-address=\(address)", "--log.level=warn"]
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The API's answer to an instant query: `data.result`.
    func query(_ promql: String) throws -> [[String: Any]] {
        let encoded = promql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? promql
        let response = try HTTPScrape.get("http://\(address)/api/v1/query?query=\(encoded)", timeout: 5)
        guard response.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else { return [] }
        return result
    }

    /// The `instance` label of every series the query returns, sorted.
    func instances(_ promql: String) throws -> [String] {
        try query(promql).compactMap { ($0["metric"] as? [String: String])?["instance"] }.sorted()
    }

    /// The value of a query returning one series.
    func value(_ promql: String) throws -> Double? {
        guard let sample = try query(promql).first?["value"] as? [Any], sample.count == 2, let text = sample[1] as? String else { return nil }
        return Double(text)
    }

    /// The health of every loaded rule (`ok` once evaluated).
    func ruleHealth() throws -> [String] {
        let response = try HTTPScrape.get("http://\(address)/api/v1/rules", timeout: 5)
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let groups = data["groups"] as? [[String: Any]] else { return [] }
        return groups.flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }.compactMap { $0["health"] as? String }
    }
}
