import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Testing

/// Camera handoff across real processes (seed 001: "Camera.app assumes control of the camera when
/// it's opened … the system returns camera control when Camera.app finishes").
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct CameraHandoffTests {
    @Test("C4/C5/C6: Camera.app preempts a PiP video call, which resumes when Camera.app leaves")
    func cameraAppPreemptsPiPCall() async throws {
        try await withCluster { cluster in
            try cluster.startPiPVideoCall()
            try cluster.waitForAgreement()
            var state = try cluster.coordinatorState().state
            #expect(state.holder(of: Apps.builtIn1) == Apps.call1, "the call in PiP with multitasking access holds the camera")
            let tokenBefore = state.cameraSystems[Apps.builtIn1]?.lastToken

            try cluster.act("ipad-1", [.openFullScreen(Apps.camera1, trigger: .user)])
            try cluster.waitForAgreement()
            state = try cluster.coordinatorState().state
            #expect(state.holder(of: Apps.builtIn1) == Apps.camera1)
            #expect(state.sessionState(of: Apps.call1) == .interrupted(.videoDeviceInUseByAnotherClient))
            #expect(try cluster.appEvents("ipad-1", Apps.call1).contains("wasInterrupted(3)"))
            let tokenCamera = state.cameraSystems[Apps.builtIn1]?.lastToken
            #expect(tokenCamera! > tokenBefore!, "C8: the new grant carries a higher token")

            try cluster.act("ipad-1", [.terminate(Apps.camera1)])
            try cluster.waitForAgreement()
            state = try cluster.coordinatorState().state
            #expect(state.holder(of: Apps.builtIn1) == Apps.call1)
            #expect(state.sessionState(of: Apps.call1) == .running)
            let events = try cluster.appEvents("ipad-1", Apps.call1)
            #expect(events.suffix(3).contains("interruptionEnded"))
            // The hosting node's fence follows the grants (C8).
            let fence = try cluster.status("ipad-1").holders
            #expect(fence.count == 1 && fence.first?.app.bundleID == Apps.call1.bundleID)
            #expect(fence.first?.token ?? 0 > tokenCamera!.value)
        }
    }
}
