import CamsyncLab
import CamsyncPolicy
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
}

@Suite(.serialized, .timeLimit(.minutes(3)),
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
