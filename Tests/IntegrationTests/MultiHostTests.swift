import CamsyncClient
import CamsyncProcessLab
import CamsyncTopology
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing

/// The multi-host lab (deploy/netns): the coordinator and each node in its own network namespace
/// with its own address, talking TCP over a bridge. Needs root; skipped with a message otherwise.
enum MultiHostLab {
    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("deploy/netns/lab.sh").path
    }()

    /// Whether `lab.sh check` passes here (root, `ip netns`, veth).
    static let available: Bool = {
        guard getuid() == 0, let result = try? run([script, "check"]) else { return false }
        return result.status == 0
    }()

    @discardableResult
    static func run(_ arguments: [String]) throws -> CommandResult {
        try runCommand("/bin/bash", arguments)
    }

    /// `lab.sh` with LAB_SUBNET for this call only (suites run in parallel: no setenv).
    @discardableResult
    static func run(_ arguments: [String], subnet: String) throws -> CommandResult {
        try runCommand("/bin/bash", arguments, environment: ["LAB_SUBNET": subnet])
    }
}

@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)),
       .enabled(if: MultiHostLab.available, "network namespaces need root and iproute2 (deploy/netns/lab.sh check): multi-host test skipped"))
struct MultiHostTests {
    @Test("across namespaces: camera handoff, partition of the display (K1), heal and rejoin (K2)")
    func partitionAndHeal() async throws {
        let prefix = "cmh\(getpid() % 10000)"
        let subnet = "10.231.\(50 + getpid() % 150)"
        setenv("LAB_SUBNET", subnet, 1)
        let up = try MultiHostLab.run([MultiHostLab.script, "up", "3", prefix])
        try #require(up.status == 0, "lab.sh up failed: \(up.output)")
        defer { _ = try? MultiHostLab.run([MultiHostLab.script, "down", prefix]) }

        let (base, dir) = try TestTopology.make(heartbeatMs: 250, liveness: 4)
        var topology = base
        topology.coordinator = .init(commands: "tcp://\(subnet).1:5555", events: "tcp://\(subnet).1:5556", host: "\(prefix)-coord")
        topology.coordinator.localCommands = "ipc://\(dir)/coordinator-local-commands.sock"
        topology.coordinator.localEvents = "ipc://\(dir)/coordinator-local-events.sock"
        for index in topology.nodes.indices {
            topology.nodes[index].host = "\(prefix)-h\(index + 1)"
        }
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: try camsyncBinary())
        defer {
            cluster.stop(grace: 3)
            try? FileManager.default.removeItem(atPath: dir)
        }
        try cluster.start(timeout: 30)
        try cluster.waitUntil(timeout: 10, what: "display-1 attached") {
            try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
        }

        // Camera handoff across hosts: the app on ipad-1 (h1) uses the camera of display-1 (h3).
        let onDisplay = StageWindow(screen: "display-1", frame: Frame(x: 0, y: 0, width: 800, height: 600))
        try cluster.act("ipad-1", [
            .stageOpen(Apps.recorder1, onDisplay),
            .configureSession(Apps.recorder1, SessionConfiguration(camera: Apps.displayCamera, multitaskingCameraAccessEnabled: true)),
            .startSession(Apps.recorder1),
            .stageOpen(Apps.notes1, onDisplay),
        ])
        try cluster.waitForAgreement()
        try cluster.waitUntil(timeout: 5, what: "display-1's fence to let the recorder capture") {
            try cluster.status("display-1").holders.first?.app.bundleID == Apps.recorder1.bundleID
        }

        // Partition the display's host: K1.
        try #require(try MultiHostLab.run([MultiHostLab.script, "partition", "h3", prefix]).status == 0)
        try cluster.waitUntil(timeout: 10, what: "display-1 declared dead") {
            try cluster.coordinatorState().state.nodes["display-1"]?.alive == false
        }
        var state = try cluster.coordinatorState().state
        #expect(state.sessionState(of: Apps.recorder1) == .stopped, "C10: camera disconnected")
        #expect(state.apps[Apps.notes1]?.scene.stageScreen == "ipad-1", "L3: windows back on the iPad")

        // Heal: K2 — the display rejoins, resyncs and re-attaches; every replica agrees.
        try #require(try MultiHostLab.run([MultiHostLab.script, "heal", "h3", prefix]).status == 0)
        try cluster.waitUntil(timeout: 20, what: "display-1 to rejoin and re-attach") {
            let state = try cluster.coordinatorState().state
            return state.nodes["display-1"]?.alive == true && state.nodes["display-1"]?.attachedTo == "ipad-1"
        }
        try cluster.waitForAgreement(timeout: 15)
        state = try cluster.coordinatorState().state
        #expect(state.cameraSystems[.external(Apps.displayCamera)]?.available == true)
    }
}

/// SPEC K6 across hosts: three etcd members (h1–h3) and three coordinators (h4–h6) each on its own
/// host, a node on the leader's host (given only the leader) and one on h7 (given every
/// coordinator). Partitioning the leader's host cuts it off from etcd while the node beside it, and
/// a client on its local endpoint, still reach it.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)),
       .enabled(if: MultiHostLab.available, "network namespaces need root and iproute2 (deploy/netns/lab.sh check): multi-host test skipped"),
       .enabled(if: EtcdCluster.isAvailable, Comment(rawValue: EtcdCluster.unavailableMessage)))
struct MultiHostHATests {
    @Test("HA across namespaces: the leader's host is partitioned — no ack or grant from it, a standby on another host leads, after healing it rejoins as a standby")
    func leaderPartition() async throws {
        let prefix = "cha\(getpid() % 10000)"
        let subnet = "10.231.\(50 + (getpid() + 75) % 150)"
        let up = try MultiHostLab.run([MultiHostLab.script, "up", "7", prefix], subnet: subnet)
        try #require(up.status == 0, "lab.sh up failed: \(up.output)")
        defer { _ = try? MultiHostLab.run([MultiHostLab.script, "down", prefix], subnet: subnet) }
        func address(_ host: Int) -> String { "\(subnet).\(10 + host)" }

        let (base, dir) = try TestTopology.make([TestTopology.ipad1, TestTopology.ipad2], heartbeatMs: 250, liveness: 4)
        let coordinators = (1...3).map { index in
            var c = Topology.Coordinator(name: "c\(index)", commands: "tcp://\(address(3 + index)):5555",
                                         events: "tcp://\(address(3 + index)):5556", host: "\(prefix)-h\(3 + index)")
            c.localCommands = "ipc://\(dir)/c\(index)-commands.sock"
            c.localEvents = "ipc://\(dir)/c\(index)-events.sock"
            return c
        }
        var nodes = base.nodes
        nodes[0].host = "\(prefix)-h4"  // beside c1, which is made the leader
        nodes[1].host = "\(prefix)-h7"  // a host of its own, given every coordinator
        let etcd = Topology.Etcd(members: 3, memberHosts: (1...3).map { .init(host: "\(prefix)-h\($0)", address: address($0)) },
                                 leaseSeconds: 2)
        let topology = Topology(name: "ha-netns", etcd: etcd, coordinators: coordinators, settings: base.settings,
                                security: .init(curve: false), nodes: nodes)
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: try camsyncBinary())
        // The node reaches c1 only (so that it still reaches the leader once its host is cut off).
        cluster.nodeCoordinators["ipad-1"] = ["c1"]
        defer {
            cluster.stop(grace: 3)
            try? FileManager.default.removeItem(atPath: dir)
        }
        func logs() -> String {
            (["etcd-0", "c1", "c2", "c3", "ipad-1", "ipad-2"]).map { name in
                let text = (try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8)) ?? ""
                return "--- \(name)\n" + text.split(separator: "\n").suffix(25).joined(separator: "\n")
            }.joined(separator: "\n")
        }
        func snapshot(_ name: String, timeout: Int = 2000) -> Result<CoordinatorClient.Snapshot, ClientError> {
            do {
                let client = try cluster.coordinatorClient(named: name)
                defer { client.close() }
                return .success(try client.snapshot(timeoutMilliseconds: timeout))
            } catch let error as ClientError { return .failure(error) } catch { return .failure(.transport("\(error)")) }
        }

        do {
            try cluster.startEtcd(timeout: 30)
            try cluster.startCoordinator(named: "c1")
            try cluster.waitUntil(timeout: 20, what: "c1 to lead") { (try? snapshot("c1").get()) != nil }
            for name in ["c2", "c3"] { try cluster.startCoordinator(named: name) }
            try cluster.waitUntil(timeout: 20, what: "c2 and c3 to follow c1") {
                ["c2", "c3"].allSatisfy { name in
                    if case .failure(let error) = snapshot(name) { return error.refusal?.leader?.name == "c1" }
                    return false
                }
            }
            try cluster.startNode("ipad-1")
            try cluster.startNode("ipad-2")
            try cluster.waitUntilJoined(timeout: 30)
        } catch {
            throw ClusterWaitError(message: "\(error)\n\(logs())")
        }
        let term1 = try snapshot("c1").get().term

        // Acknowledged by c1: the call holds ipad-1's camera.
        try cluster.act("ipad-1", [
            .openFullScreen(Apps.call1, trigger: .user),
            .configureSession(Apps.call1, SessionConfiguration(camera: Apps.front1)),
            .startSession(Apps.call1),
        ])
        try cluster.waitUntil(timeout: 5, what: "the node's fence to let the call capture") {
            try cluster.status("ipad-1").holders.first?.app.bundleID == Apps.call1.bundleID
        }
        let fenceBefore = try cluster.status("ipad-1").holders

        // Cut the leader's host off: c1 reaches neither etcd nor the other coordinators.
        try #require(try MultiHostLab.run([MultiHostLab.script, "partition", "h4", prefix], subnet: subnet).status == 0)
        let cutAt = Date()

        // A client that still reaches c1 (its local endpoint) gets no acknowledgement from it.
        do {
            let client = try cluster.coordinatorClient(named: "c1")
            defer { client.close() }
            let sequence = try client.send(.stopSession(Apps.call1), timeoutMilliseconds: 6000)
            Issue.record("the cut-off leader acknowledged a command (sequence \(sequence))")
        } catch let error as ClientError {
            #expect(error.refusal == nil || error.refusal?.code == .notLeader, "NOT_LEADER or no answer, not \(error)")
        }
        // The node beside it: Camera.app's claim is not granted by c1.
        let control = try cluster.controlClient("ipad-1")
        defer { control.close() }
        if let sequence = try? control.act(.openFullScreen(Apps.camera1, trigger: .user), timeoutMilliseconds: 6000) {
            Issue.record("the cut-off leader acknowledged the node's claim (sequence \(sequence))")
        }

        // A standby on another host leads, in a higher term, with everything c1 acknowledged.
        var newLeader = ""
        var state: CoordinatorClient.Snapshot?
        try cluster.waitUntil(timeout: 20, what: "c2 or c3 to lead") {
            for name in ["c2", "c3"] {
                if case .success(let s) = snapshot(name), s.term > term1 {
                    newLeader = name
                    state = s
                    return true
                }
            }
            return false
        }
        let failover = Date().timeIntervalSince(cutAt)
        #expect(failover < 15, "failover took \(failover) s")
        #expect((state?.term ?? 0) > term1)
        // ipad-2, given every coordinator, follows the new leader without restarting.
        let ipad2 = cluster.nodes["ipad-2"]?.pid
        do {
            try cluster.waitUntil(timeout: 15, what: "ipad-2 to follow \(newLeader)") {
                let status = try cluster.status("ipad-2")
                return status.term == state?.term && status.registered && status.synced
            }
        } catch {
            Issue.record("\(error)\n\(logs())")
        }
        #expect(cluster.nodes["ipad-2"]?.isRunning == true && cluster.nodes["ipad-2"]?.pid == ipad2)
        // The new leader's log holds every command c1 acknowledged, and none it did not. (Its state may
        // already show ipad-1 declared dead: the node is cut off from it, K1.)
        let replay = try {
            let client = try cluster.coordinatorClient(named: newLeader)
            defer { client.close() }
            return try client.replay(after: 0)
        }()
        let logged = replay.batches.compactMap { try? Command(wire: $0.command) }
        for acknowledged in [Command.openFullScreen(Apps.call1, trigger: .user), .startSession(Apps.call1)] {
            #expect(logged.contains(acknowledged), "acknowledged by c1, so in the log: \(acknowledged)")
        }
        #expect(!logged.contains(.stopSession(Apps.call1)), "the command c1 could not commit is not in the log")
        #expect(!logged.contains(.openFullScreen(Apps.camera1, trigger: .user)), "nor the node's claim")

        // Still cut off, c1 has stopped leading: NOT_LEADER (or no answer), never a leader's snapshot.
        try cluster.waitUntil(timeout: 10, what: "the cut-off c1 to stop serving as leader") {
            if case .failure(let error) = snapshot("c1") { return error.refusal?.code == .notLeader || error.refusal == nil }
            return false
        }
        let node = try cluster.status("ipad-1")
        #expect(!node.appEvents.contains { $0.app.bundleID == Apps.camera1.bundleID && $0.name == "cameraGranted" },
                "no grant reached the node from the cut-off leader")
        #expect(node.holders == fenceBefore, "the node's fence is unchanged")

        // Heal: c1 rejoins as a standby and names the new leader (`ctl status` on it, not followed).
        // How soon depends on TCP's retransmission back-off on c1's stalled etcd connections (the etcd
        // client sends no keepalive pings): a few seconds here, more after a longer partition.
        try #require(try MultiHostLab.run([MultiHostLab.script, "heal", "h4", prefix], subnet: subnet).status == 0)
        var answer = ""
        do {
            try cluster.waitUntil(timeout: 60, what: "c1 to rejoin as a standby naming \(newLeader)") {
                answer = try runLogged(try camsyncBinary(), ["ctl", "status", "--coordinator", "ipc://\(dir)/c1-commands.sock",
                                                             "--no-follow-leader", "--timeout", "2"],
                                       log: "\(dir)/ctl.txt", timeout: 10).output
                return answer.contains("notLeader") && answer.contains("the leader is \(newLeader)")
            }
        } catch {
            throw ClusterWaitError(message: "\(error); c1 answered: \(answer)\n\(logs())")
        }
        // Through the topology, ctl reaches the new leader whichever coordinator it asks first.
        let leaderEndpoint = try cluster.leaderCommandEndpoint()
        #expect(leaderEndpoint == "ipc://\(dir)/\(newLeader)-commands.sock")
        #expect(try cluster.coordinatorState().term > term1)
    }
}
}
