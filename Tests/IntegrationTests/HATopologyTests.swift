import CamsyncClient
import CamsyncProcessLab
import CamsyncTopology
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// HA topologies (SPEC K6; docs/OPERATIONS.md "High availability (etcd)"): the `etcd:` section and the
/// `coordinators:` list, what nodes are given, and `camsync cluster up/status/down` + `ctl status`
/// on a real 3-member etcd cluster with real coordinators.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)))
struct HATopologyTests {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let node = """
          - id: ipad-1
            kind: device
            device:
              os: 16
              cameras: [ { name: front, position: front } ]
              apps: [ { bundleID: com.example.videocall } ]
        """

    @Test("deploy/topologies/ha.yaml parses: 3 local etcd members, 3 named coordinators, nodes given every endpoint")
    func shippedTopology() throws {
        let topology = try Topology(path: "\(Self.repository)/deploy/topologies/ha.yaml")
        #expect(topology.isHighAvailability)
        #expect(topology.etcd?.members == 3)
        #expect(topology.coordinatorProcessNames == ["c1", "c2", "c3"])
        #expect(topology.etcdMemberNames == ["etcd-0", "etcd-1", "etcd-2"])
        #expect(topology.coordinator.name == "c1", "the first coordinator stands for `coordinator`")

        let dir = NSTemporaryDirectory() + "camsync-ha-parse-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: "/bin/false")
        let all = cluster.coordinatorEndpoints(for: "ipad-1")
        #expect(all.commands == "tcp://127.0.0.1:25755,tcp://127.0.0.1:25765,tcp://127.0.0.1:25775")
        #expect(all.events == "tcp://127.0.0.1:25756,tcp://127.0.0.1:25766,tcp://127.0.0.1:25776")
        cluster.nodeCoordinators["ipad-2"] = ["c2"]
        #expect(cluster.coordinatorEndpoints(for: "ipad-2").commands == "tcp://127.0.0.1:25765")
        #expect(cluster.etcdPrefix == "/camsync/ha")

        // The single-coordinator topologies are unchanged.
        let lab = try Topology(path: "\(Self.repository)/deploy/topologies/lab.yaml")
        #expect(!lab.isHighAvailability && lab.coordinatorProcessNames == ["coordinator"] && lab.etcdMemberNames.isEmpty)
    }

    @Test("HA topologies that cannot work are refused before anything starts, naming the field")
    func invalidTopologies() {
        func refusal(_ yaml: String) -> String? {
            do {
                _ = try Topology(yaml: yaml)
                return nil
            } catch { return "\(error)" }
        }
        let coordinators = """
            coordinators:
              - { name: c1, commands: tcp://127.0.0.1:1, events: tcp://127.0.0.1:2 }
            """
        #expect(refusal("name: x\n\(coordinators)\nnodes: []")?.contains("needs an etcd: section") == true)
        #expect(refusal("name: x\netcd: { members: 3 }\ncoordinator: { commands: a, events: b }\nnodes: []")?
            .contains("coordinators: list") == true)
        #expect(refusal("name: x\netcd: { members: 3, endpoints: [http://h:2379] }\n\(coordinators)\nnodes: []")?
            .contains("either members") == true)
        #expect(refusal("name: x\netcd: { members: 3 }\ncoordinators:\n  - { commands: a, events: b }\nnodes: []")?
            .contains("needs a name") == true)
        #expect(refusal("name: x\netcd: { members: 3 }\ncoordinators:\n  - { name: c1, commands: a, events: b, dataDir: d }\nnodes: []")?
            .contains("no dataDir in HA mode") == true)
        #expect(refusal("name: x\netcd: { members: 3, memberHosts: [ { host: h1, address: 10.0.0.1 } ] }\n\(coordinators)\nnodes: []")?
            .contains("memberHosts has 1 entries for 3 members") == true)
        #expect(refusal("name: x\ncoordinator: { commands: a, events: b }\n\(coordinators)\nnodes: []")?.contains("not both") == true)
        #expect(refusal("name: x\netcd: { members: 3 }\ncoordinators:\n  - { name: ipad-1, commands: a, events: b }\nnodes:\n\(Self.node)")?
            .contains("appears twice") == true)
        #expect(refusal("name: x\netcd: { endpoints: [http://etcd-1] }\n\(coordinators)\nnodes: []")?
            .contains("expected host:port") == true)
        #expect(refusal("name: x\netcd: { endpoints: [http://etcd-1:2379] }\n\(coordinators)\nnodes: []") == nil,
                "host names are resolved by DNS")
        #expect(refusal("name: x\netcd: { endpoints: [http://10.0.0.1:2379] }\n\(coordinators)\nnodes: []") == nil)
        #expect(refusal("name: x\netcd: { members: 3 }\n\(coordinators)\nnodes:\n\(Self.node)") == nil)
    }

    @Test("cluster up starts etcd and two coordinators (one leads); ctl status follows a standby's NOT_LEADER; cluster down stops all",
          .enabled(if: EtcdCluster.isAvailable, Comment(rawValue: EtcdCluster.unavailableMessage)))
    func clusterUpDown() throws {
        let binary = try camsyncBinary()
        let dir = EtcdCluster.scratchParent + "/camsync-ha-up-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let run = "\(dir)/run"
        // Whatever happens, nothing is left running (etcd members included) and the directory goes.
        defer {
            RunDirectory(path: run).stopAll(grace: 3, last: [["c1", "c2"], ["etcd-0", "etcd-1", "etcd-2"]])
            try? FileManager.default.removeItem(atPath: dir)
        }
        let ports = (0..<4).map { _ in LoopbackPorts.free() }
        let file = "\(dir)/ha.yaml"
        // No nodes: the nodes' side of HA (following the leader through the lists) is tested where nodes take lists.
        try """
            name: ha-it
            etcd: { members: 3, leaseSeconds: 2 }
            coordinators:
              - { name: c1, commands: "tcp://127.0.0.1:\(ports[0])", events: "tcp://127.0.0.1:\(ports[1])" }
              - { name: c2, commands: "tcp://127.0.0.1:\(ports[2])", events: "tcp://127.0.0.1:\(ports[3])" }
            security: { curve: true }
            nodes: []
            """.write(toFile: file, atomically: true, encoding: .utf8)
        func camsync(_ arguments: [String], timeout: Double = 60) throws -> CommandResult {
            try runLogged(binary, arguments + (arguments.first == "cluster" ? ["--run-dir", run] : []), log: "\(dir)/out.txt",
                          timeout: timeout)
        }

        let up = try camsync(["cluster", "up", file, "--timeout", "40"])
        try #require(up.status == 0, "cluster up failed:\n\(up.output)\n\(Self.logs(run))")
        #expect(up.output.contains("HA: coordinators c1, c2 on etcd (3 members started here)"))
        #expect(up.output.contains("leader: c"))
        // etcd as deployed: https with client certificates from the run directory's CA, auth on.
        for file in ["ca.crt", "etcd-0.crt", "c1.crt", "c1.key", "c2.crt", "root.crt"] {
            #expect(FileManager.default.fileExists(atPath: "\(run)/tls/\(file)"), "\(file) in \(run)/tls")
        }
        let etcdLog = (try? String(contentsOfFile: "\(run)/etcd-0.log", encoding: .utf8)) ?? ""
        #expect(etcdLog.contains("client-cert-auth = true") && etcdLog.contains("https://"), "etcd-0 serves mutual TLS")
        #expect(etcdLog.contains("Authentication enabled"), "auth is on")
        let c1Log = (try? String(contentsOfFile: "\(run)/c1.log", encoding: .utf8)) ?? ""
        #expect(!c1Log.contains("PLAINTEXT"))

        let status = try camsync(["cluster", "status", file])
        for name in ["etcd-0", "etcd-1", "etcd-2", "c1", "c2"] {
            #expect(status.output.split(separator: "\n")
                .contains { $0.hasPrefix(name) && $0.contains("running") }, "\(name) runs:\n\(status.output)")
        }

        // Through the topology: whichever coordinator is asked first, ctl reaches the leader.
        let ctl = try camsync(["ctl", "status", "-f", file, "--run-dir", run])
        #expect(ctl.status == 0, "ctl status -f: \(ctl.output)")
        #expect(ctl.output.contains(" in term "), "the headline names the leader and its term: \(ctl.output)")

        // Which one leads, as the coordinators themselves say.
        let curve = try Self.adminCurve(run)
        let context = try ZMQContext()
        var roles: [String: Result<UInt64, ClientError>] = [:]
        for (name, port) in [("c1", ports[0]), ("c2", ports[2])] {
            let client = try CoordinatorClient(context: context, endpoint: "tcp://127.0.0.1:\(port)", curve: curve)
            defer { client.close() }
            do { roles[name] = .success(try client.snapshot(timeoutMilliseconds: 3000).term) } catch let error as ClientError {
                roles[name] = .failure(error)
            }
        }
        let leaders = roles.filter { if case .success = $0.value { true } else { false } }.map(\.key)
        try #require(leaders.count == 1, "exactly one coordinator leads: \(roles)")
        let leader = leaders[0], standby = leader == "c1" ? "c2" : "c1"
        let standbyPort = standby == "c1" ? ports[0] : ports[2]
        if case .failure(let error) = roles[standby] {
            #expect(error.refusal?.code == .notLeader && error.refusal?.leader?.name == leader,
                    "the standby names the leader: \(error)")
        }
        // Each coordinator has its own key: ctl believes the ones coordinators.txt lists.
        let keys = ["--admin-key", "\(run)/keys/admin.key", "--coordinator-keys", "\(run)/keys/coordinators.txt"]
        // Asked directly, the standby refuses and names the leader; by default ctl follows that once.
        let refused = try camsync(["ctl", "status", "--coordinator", "tcp://127.0.0.1:\(standbyPort)", "--no-follow-leader"] + keys)
        #expect(refused.status != 0)
        #expect(refused.output.contains("notLeader") && refused.output.contains("the leader is \(leader)"), "\(refused.output)")
        let followed = try camsync(["ctl", "status", "--coordinator", "tcp://127.0.0.1:\(standbyPort)"] + keys)
        // Asked by address only, ctl knows no etcd to name a leader in the headline: the state's own line says the term.
        #expect(followed.status == 0 && followed.output.contains("coordinator term "), "\(followed.output)")

        // A second `up` starts nothing new.
        let again = try camsync(["cluster", "up", file, "--timeout", "20"])
        #expect(again.status == 0 && again.output.contains("already running"), "\(again.output)")

        let etcdPids = RunDirectory(path: run).entries().filter { $0.name.hasPrefix("etcd-") }.map(\.pid)
        #expect(etcdPids.count == 3)
        let down = try camsync(["cluster", "down", file, "--grace", "5"])
        #expect(down.status == 0, "\(down.output)")
        let lines = down.output.split(separator: "\n").map(String.init)
        let order = ["c1", "c2", "etcd-0"].map { name in lines.firstIndex { $0.contains("stopped \(name) ") } ?? -1 }
        #expect(order.allSatisfy { $0 >= 0 } && order[0] < order[2] && order[1] < order[2],
                "coordinators stop before etcd's members:\n\(down.output)")
        #expect(RunDirectory(path: run).entries().filter(\.alive).isEmpty)
        #expect(!etcdPids.contains(where: RunDirectory.isAlive), "no etcd member is left running")
    }

    static func adminCurve(_ run: String) throws -> ClientCurve {
        func key(_ file: String) throws -> String {
            try String(contentsOfFile: "\(run)/keys/\(file)", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let secret = try key("admin.key")
        let trusted = try TrustedCoordinators(parsing: String(contentsOfFile: "\(run)/keys/coordinators.txt", encoding: .utf8),
                                              file: "coordinators.txt", isValidKey: CurveKeyPair.isValidZ85Key)
        return ClientCurve(publicKey: try CurveKeyPair(secretKey: secret).publicKey, secretKey: secret, coordinators: trusted)
    }

    static func logs(_ run: String) -> String {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: run)) ?? []).filter { $0.hasSuffix(".log") }.sorted()
        return files.map { file in
            let text = (try? String(contentsOfFile: "\(run)/\(file)", encoding: .utf8)) ?? ""
            return "--- \(file)\n" + text.split(separator: "\n").suffix(12).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
}

/// Runs a command with its output in a file (children it leaves running must not hold a pipe
/// open), bounded by `timeout` (SIGKILL), and returns the status and the output.
func runLogged(_ executable: String, _ arguments: [String], log: String, timeout: Double) throws -> CommandResult {
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    try? handle.close()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return CommandResult(status: process.terminationStatus, output: output)
}
