import CamsyncClient
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Testing
import ZeroMQ

/// The display cases with the C display agent (`agent: c`, camsync-display-agent) in place of
/// the Swift display: the same outcomes, through the same control socket contract.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(4)))
struct DisplayAgentTests {
    static let agentDisplay = TestTopology.display1 + "\nagent: c"
    static let nodes = [TestTopology.ipad1, TestTopology.ipad2, agentDisplay]
    static let onDisplay = StageWindow(screen: "display-1", frame: Frame(x: 0, y: 0, width: 800, height: 600))
    static let displaySystem = CameraSystemID.external(Apps.displayCamera)

    /// The agent's fence: (app bundle id, token) of the holder of its camera, if any.
    static func fenceHolder(_ cluster: LocalCluster) throws -> (String, UInt64)? {
        try cluster.status("display-1").holders.first.map { ($0.app.bundleID, $0.token) }
    }

    static func waitAttached(_ cluster: LocalCluster) throws {
        try cluster.waitUntil(timeout: 10, what: "display-1 to attach to ipad-1") {
            try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
        }
    }

    @Test("the C agent runs the display: partial replica, registered, synced, attached")
    func agentJoins() async throws {
        try await withCluster(Self.nodes) { cluster in
            try Self.waitAttached(cluster)
            try cluster.waitForAgreement()
            let status = try cluster.status("display-1")
            #expect(status.partialReplica && status.registered && status.synced && status.coordinatorReachable)
            #expect(status.replica.nodes.map(\.id) == ["display-1", "ipad-1"], "its own record and its device's")
            #expect(status.replica.cameraSystems.count == 1 && status.replica.cameraSystems[0].available)
            #expect(status.replica.apps.isEmpty)
            let log = try String(contentsOfFile: cluster.logPath("display-1"), encoding: .utf8)
            #expect(log.contains("agent=c"), "the display is the C agent, not camsync node")
        }
    }

    @Test("K1 display: its camera disconnects (C10), its windows return to the iPad (L3)")
    func displayKilled() async throws {
        try await withCluster(Self.nodes) { cluster in
            try Self.waitAttached(cluster)
            try cluster.act("ipad-1", [
                .stageOpen(Apps.recorder1, Self.onDisplay),
                .configureSession(Apps.recorder1, SessionConfiguration(camera: Apps.displayCamera, multitaskingCameraAccessEnabled: true)),
                .startSession(Apps.recorder1),
                .stageOpen(Apps.notes1, Self.onDisplay),
            ])
            try cluster.waitForAgreement()
            #expect(try cluster.coordinatorState().state.sessionState(of: Apps.recorder1) == .running)
            #expect(try Self.fenceHolder(cluster)?.0 == Apps.recorder1.bundleID, "the agent's fence lets the holder capture")

            cluster.signalNode("display-1", SIGKILL)
            try cluster.waitUntil(timeout: 10, what: "display-1 declared dead") {
                try cluster.coordinatorState().state.nodes["display-1"]?.alive == false
            }
            try cluster.waitForAgreement()
            let state = try cluster.coordinatorState().state
            #expect(state.apps[Apps.notes1]?.scene.stageScreen == "ipad-1", "L3: windows return to the device screen")
            #expect(state.apps[Apps.recorder1]?.scene.stageScreen == "ipad-1")
            #expect(state.sessionState(of: Apps.recorder1) == .stopped, "C10: the session stopped")
            #expect(try cluster.appEvents("ipad-1", Apps.recorder1).contains("cameraDisconnected"))
        }
    }

    @Test("K2: a killed agent comes back, re-registers, resyncs and re-attaches; its device's return re-attaches it too")
    func agentRejoins() async throws {
        try await withCluster(Self.nodes) { cluster in
            try Self.waitAttached(cluster)
            cluster.signalNode("display-1", SIGKILL)
            try cluster.waitUntil(timeout: 10, what: "display-1 declared dead") {
                try cluster.coordinatorState().state.nodes["display-1"]?.alive == false
            }
            try cluster.startNode("display-1")
            try cluster.waitUntil(timeout: 10, what: "display-1 alive and attached again") {
                let node = try cluster.coordinatorState().state.nodes["display-1"]
                return node?.alive == true && node?.attachedTo == "ipad-1"
            }
            try cluster.waitForAgreement()

            cluster.signalNode("ipad-1", SIGKILL)
            try cluster.waitUntil(timeout: 10, what: "ipad-1 declared dead, display-1 detached") {
                let state = try cluster.coordinatorState().state
                return state.nodes["ipad-1"]?.alive == false && state.nodes["display-1"]?.attachedTo == nil
            }
            try cluster.waitForAgreement()
            #expect(try cluster.status("display-1").replica.cameraSystems.first?.available == false, "C10")
            try cluster.startNode("ipad-1")
            try cluster.waitUntil(timeout: 10, what: "display-1 re-attached to the returning ipad-1") {
                try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
            }
            try cluster.waitForAgreement()
        }
    }

    /// A capture on the display camera, handed from one app to another and back (C4, C6, C8).
    static func handoff(_ cluster: LocalCluster) throws {
        try Self.waitAttached(cluster)
        let multitasking = { (app: AppID) in
            Command.configureSession(app, SessionConfiguration(camera: Apps.displayCamera, multitaskingCameraAccessEnabled: true))
        }
        try cluster.act("ipad-1", [
            .stageOpen(Apps.recorder1, Self.onDisplay), multitasking(Apps.recorder1), .startSession(Apps.recorder1),
        ])
        try cluster.waitForAgreement()
        let first = try #require(try Self.fenceHolder(cluster))
        #expect(first.0 == Apps.recorder1.bundleID)

        try cluster.act("ipad-1", [
            .stageOpen(Apps.scanner1, Self.onDisplay), multitasking(Apps.scanner1), .startSession(Apps.scanner1),
        ])
        try cluster.waitForAgreement()
        var state = try cluster.coordinatorState().state
        #expect(state.holder(of: Self.displaySystem) == Apps.scanner1, "C4: the session that started takes the camera")
        let second = try #require(try Self.fenceHolder(cluster))
        #expect(second.0 == Apps.scanner1.bundleID && second.1 > first.1, "C8: a higher token")

        try cluster.act("ipad-1", [.stopSession(Apps.scanner1)])
        try cluster.waitForAgreement()
        state = try cluster.coordinatorState().state
        #expect(state.holder(of: Self.displaySystem) == Apps.recorder1, "C6: the camera returns")
        let third = try #require(try Self.fenceHolder(cluster))
        #expect(third.0 == Apps.recorder1.bundleID && third.1 > second.1)
        #expect(third.1 == state.cameraSystems[Self.displaySystem]?.lastToken.value)
        let log = try cluster.status("display-1").fenceLog
        let decisions = log.map { "\($0.decision == .allowed ? "allow" : $0.decision == .released ? "release" : "refuse") \($0.app.bundleID) \($0.token)" }
        #expect(decisions == [
            "allow \(Apps.recorder1.bundleID) \(first.1)", "release \(Apps.recorder1.bundleID) \(first.1)",
            "allow \(Apps.scanner1.bundleID) \(second.1)", "release \(Apps.scanner1.bundleID) \(second.1)",
            "allow \(Apps.recorder1.bundleID) \(third.1)",
        ], "\(decisions)")
    }

    @Test("C4/C6/C8: a camera handoff across the display's camera; the agent's fence follows the tokens")
    func cameraHandoff() async throws {
        try await withCluster(Self.nodes) { cluster in try Self.handoff(cluster) }
    }

    /// kill -9 of the coordinator and a restart: the agent sees the new term and carries its view and
    /// registration over (K7: the journal kept both), keeps its fence and stays in agreement;
    /// actions through it work again.
    static func coordinatorRestart(_ cluster: LocalCluster) throws {
        let before = try cluster.coordinatorState()
        let holder = try Self.fenceHolder(cluster)
        cluster.signalCoordinator(SIGKILL)
        try cluster.startCoordinator()
        try cluster.waitUntil(timeout: 15, what: "the agent to hear the new term") {
            let after = try cluster.coordinatorState()
            let status = try cluster.status("display-1")
            let log = try String(contentsOfFile: cluster.logPath("display-1"), encoding: .utf8)
            return after.term > before.term && status.registered && status.synced
                && log.contains("new coordinator term: the view and the registration carry over")
        }
        try cluster.waitForAgreement(timeout: 15)
        #expect(try Self.fenceHolder(cluster)?.1 == holder?.1, "K3/C8: the grant and its token survive")
        let log = try String(contentsOfFile: cluster.logPath("display-1"), encoding: .utf8)
        #expect(!log.contains("joining reason=\"coordinator term\""), "K7: no rejoin on a new term")
        try cluster.act("display-1", [.setPressure(Self.displaySystem, .serious)])
        try cluster.waitForAgreement()
        #expect(try cluster.coordinatorState().state.cameraSystems[Self.displaySystem]?.pressure == .serious)
        #expect(try cluster.status("display-1").term == cluster.coordinatorState().term, "its view continues in the new term")
    }

    @Test("coordinator kill -9 and restart: the agent carries its registration into the new term (K7) and keeps its fence")
    func coordinatorKilled() async throws {
        try await withCluster(Self.nodes) { cluster in
            try Self.waitAttached(cluster)
            try cluster.act("ipad-1", [
                .stageOpen(Apps.recorder1, Self.onDisplay),
                .configureSession(Apps.recorder1, SessionConfiguration(camera: Apps.displayCamera, multitaskingCameraAccessEnabled: true)),
                .startSession(Apps.recorder1),
            ])
            try cluster.waitForAgreement()
            try Self.coordinatorRestart(cluster)
        }
    }

    static func errorCode(_ reply: Envelope) -> Camsync_V1_ErrorCode? {
        if case .error(let error)? = reply.body { return error.code }
        return nil
    }

    /// Garbage on the control socket gets error replies with codes; the agent keeps answering.
    static func badControlInput(_ cluster: LocalCluster) throws {
        let context = try ZMQContext()
        let raw = try CoordinatorClient(context: context, endpoint: cluster.controlEndpoint("display-1"), sender: "ctl")
        defer { raw.close() }
        var rng = SystemRandomNumberGenerator()
        for length in [1, 7, 64, 4096] {
            let garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let reply = try raw.sendRaw(garbage)
            #expect([.malformed, .unsupportedVersion].contains(Self.errorCode(reply)), "\(length) random bytes")
        }
        let status = Envelope(sender: "ctl", requestID: 5, body: .nodeStatusRequest(Camsync_V1_NodeStatusRequest()))
        let good = status.serializedBytes()
        #expect(Self.errorCode(try raw.sendRaw(Array(good.prefix(good.count - 1)))) == .malformed, "truncated")
        var wrongVersion = status
        wrongVersion.protocolVersion = 99
        #expect(Self.errorCode(try raw.sendRaw(wrongVersion.serializedBytes())) == .unsupportedVersion)
        var noBody = status
        noBody.body = nil
        #expect(Self.errorCode(try raw.sendRaw(noBody.serializedBytes())) == .malformed)
        let ack = Envelope(sender: "ctl", requestID: 6, body: .ack(Camsync_V1_Ack()))
        let unexpected = try raw.sendRaw(ack.serializedBytes())
        #expect(Self.errorCode(unexpected) == .unexpectedMessage && unexpected.requestID == 6)
        let emptyCommand = Envelope(sender: "ctl", requestID: 7, body: .command(Camsync_V1_Command()))
        let missing = try raw.sendRaw(emptyCommand.serializedBytes())
        #expect(Self.errorCode(missing) == .malformed && missing.requestID == 7)
        // A command the coordinator refuses comes back with the coordinator's code.
        let control = try cluster.controlClient("display-1")
        defer { control.close() }
        #expect(throws: ClientError.self) { try control.act(.goHome(device: "ipad-1")) }
        // Still serving.
        #expect(try cluster.status("display-1").registered)
    }

    @Test("bad input at the agent's control socket gets error replies, never a crash")
    func badInput() async throws {
        try await withCluster(Self.nodes) { cluster in
            try Self.waitAttached(cluster)
            try Self.badControlInput(cluster)
            #expect(cluster.nodes["display-1"]?.isRunning == true)
        }
    }

    /// The repository root (for `make agent-asan`).
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    @Test("under AddressSanitizer + UndefinedBehaviorSanitizer: handoff, bad input, coordinator restart, clean exit")
    func sanitized() async throws {
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["make", "-s", "-C", Self.repository, "agent-asan"]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        let binary = Self.repository + "/.build-agent/camsync-display-agent-asan"
        try #require(make.terminationStatus == 0 && FileManager.default.isExecutableFile(atPath: binary),
                     "`make agent-asan` failed: run it to see why")
        try await withCluster(Self.nodes, prepare: { $0.displayAgentExecutable = binary }) { cluster in
            try Self.handoff(cluster)
            try Self.badControlInput(cluster)
            try Self.coordinatorRestart(cluster)
            let agent = try #require(cluster.nodes["display-1"])
            agent.signal(SIGTERM)
            _ = agent.wait(timeout: 10)
            let log = try String(contentsOfFile: cluster.logPath("display-1"), encoding: .utf8)
            #expect(!log.contains("AddressSanitizer") && !log.contains("runtime error:") && !log.contains("LeakSanitizer"),
                    "\(log.suffix(3000))")
            #expect(agent.exitStatus == 0, "the sanitized agent exits cleanly on SIGTERM")
            #expect(log.contains("node stopped"))
        }
    }
}
