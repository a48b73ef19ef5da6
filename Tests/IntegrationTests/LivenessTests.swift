import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Testing

/// K1 across processes: a node killed with SIGKILL is declared dead through the log,
/// with the consequences SPEC K1 lists, and every surviving replica agrees.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct LivenessTests {
    @Test("K1 display: its camera disconnects (C10), its windows return to the iPad (L3), reason 4 stays (C2.4)")
    func displayKilled() async throws {
        try await withCluster { cluster in
            try cluster.waitUntil(timeout: 10, what: "display-1 to attach to ipad-1") {
                try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
            }
            let onDisplay = StageWindow(screen: "display-1", frame: Frame(x: 0, y: 0, width: 800, height: 600))
            let onDevice = StageWindow(screen: "ipad-1", frame: Frame(x: 10, y: 10, width: 600, height: 400))
            try cluster.act("ipad-1", [
                .stageOpen(Apps.recorder1, onDisplay),
                .configureSession(Apps.recorder1, SessionConfiguration(camera: Apps.displayCamera, multitaskingCameraAccessEnabled: true)),
                .startSession(Apps.recorder1),
                .stageOpen(Apps.notes1, onDisplay),
                .stageOpen(Apps.scanner1, onDevice),
                .configureSession(Apps.scanner1, SessionConfiguration(camera: Apps.front1)),
                .startSession(Apps.scanner1),
            ])
            try cluster.waitForAgreement()
            var state = try cluster.coordinatorState().state
            #expect(state.sessionState(of: Apps.recorder1) == .running, "multitasking access lets it run on the display camera")
            #expect(state.sessionState(of: Apps.scanner1) == .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps))

            let killedAt = Date()
            cluster.signalNode("display-1", SIGKILL)
            try cluster.waitUntil(timeout: 10, what: "display-1 declared dead") {
                try cluster.coordinatorState().state.nodes["display-1"]?.alive == false
            }
            let detection = Date().timeIntervalSince(killedAt)
            // interval × liveness = 1 s; the margin covers a loaded 2-core machine.
            #expect(detection < 1.0 + 2.0, "declared dead after \(detection) s")

            try cluster.waitForAgreement()
            state = try cluster.coordinatorState().state
            #expect(state.apps[Apps.notes1]?.scene.stageScreen == "ipad-1", "L3: windows return to the device screen")
            #expect(state.apps[Apps.recorder1]?.scene.stageScreen == "ipad-1")
            #expect(state.sessionState(of: Apps.recorder1) == .stopped, "C10: the session stopped")
            #expect(try cluster.appEvents("ipad-1", Apps.recorder1).contains("cameraDisconnected"))
            #expect(state.sessionState(of: Apps.scanner1) == .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps))
        }
    }

    @Test("K1 device: its apps, sessions and PiP windows go from every replica; its display detaches")
    func deviceKilled() async throws {
        try await withCluster { cluster in
            try cluster.waitUntil(timeout: 10, what: "display-1 to attach") {
                try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
            }
            try cluster.startPiPVideoCall()
            try cluster.waitForAgreement()
            #expect(try cluster.coordinatorState().state.apps[Apps.call1]?.hasActivePiP == true)

            cluster.signalNode("ipad-1", SIGKILL)
            try cluster.waitUntil(timeout: 10, what: "ipad-1 declared dead") {
                try cluster.coordinatorState().state.nodes["ipad-1"]?.alive == false
            }
            try cluster.waitForAgreement()
            let (coordinator, replicas) = try cluster.replicas()
            #expect(Set(replicas.keys) == ["ipad-2", "display-1"])
            // Each replica holds its own device group: display-1, detached, its own; ipad-2 its own.
            #expect(replicas.values.allSatisfy { $0.group == $0.node })
            for (index, state) in ([coordinator.state] + (try replicas.values.map { try ClusterState(wire: $0.replica) })).enumerated() {
                let apps = state.apps.values.filter { $0.id.device == "ipad-1" }
                #expect(index > 0 || !apps.isEmpty, "the coordinator keeps ipad-1's apps")
                #expect(apps.allSatisfy { !$0.scene.isRunning })
                #expect(apps.allSatisfy { $0.session?.wantsToRun != true && $0.session?.state != .running })
                #expect(apps.allSatisfy { !$0.hasActivePiP })
                #expect(state.holder(of: Apps.builtIn1) == nil)
                #expect(state.nodes["display-1"]?.attachedTo == nil)
            }
        }
    }

    @Test("K2: a killed node that comes back rejoins, resyncs and its display re-attaches")
    func deviceComesBack() async throws {
        try await withCluster { cluster in
            cluster.signalNode("ipad-1", SIGKILL)
            try cluster.waitUntil(timeout: 10, what: "ipad-1 declared dead") {
                try cluster.coordinatorState().state.nodes["ipad-1"]?.alive == false
            }
            try cluster.startNode("ipad-1")
            try cluster.waitUntil(timeout: 10, what: "ipad-1 alive again and display-1 re-attached") {
                let state = try cluster.coordinatorState().state
                return state.nodes["ipad-1"]?.alive == true && state.nodes["display-1"]?.attachedTo == "ipad-1"
            }
            try cluster.waitForAgreement()
        }
    }
}

extension Scene {
    /// The screen of a Stage Manager window, nil for other scenes.
    var stageScreen: NodeID? {
        if case .stageWindow(let window) = self { return window.screen }
        return nil
    }
}
