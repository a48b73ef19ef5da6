import Testing
import CamsyncPolicy

@Suite struct IdentifierTests {
    @Test func cameraSystemOfDeviceIsBuiltIn() {
        let system = CameraSystemID.builtIn(device: "ipad-1")
        #expect(system.host == "ipad-1")
        #expect(system.description == "ipad-1/builtin")
    }

    @Test func interruptionReasonsHaveAVFoundationRawValues() {
        #expect(InterruptionReason.videoDeviceNotAvailableInBackground.rawValue == 1)
        #expect(InterruptionReason.videoDeviceInUseByAnotherClient.rawValue == 3)
        #expect(InterruptionReason.videoDeviceNotAvailableDueToSystemPressure.rawValue == 5)
    }
}
