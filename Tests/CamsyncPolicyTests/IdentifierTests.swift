import CamsyncPolicy
import Foundation
import Testing

@Suite struct IdentifierTests {
    @Test func cameraSystemOfDeviceIsBuiltIn() {
        let system = CameraSystemID.builtIn(device: "ipad-1")
        #expect(system.host == "ipad-1")
        #expect(system.description == "ipad-1/builtin")
    }

    @Test("an app id hashes its strings once: ids made, decoded or copied alike are equal and hash alike; others differ",
          arguments: [("ipad-1", "com.example.a"), ("ipad-1", "com.example.b"), ("ipad-2", "com.example.a"), ("ipad-1com.", "example.a")])
    func appIDIdentity(device: String, bundleID: String) throws {
        let id = AppID(device: NodeID(device), bundleID: bundleID)
        let json = try JSONEncoder().encode(id)
        // The wire of the soak's history files: the two strings, nothing else.
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: String])
        #expect(object == ["device": device, "bundleID": bundleID])
        let decoded = try JSONDecoder().decode(AppID.self, from: json)
        #expect(decoded == id && decoded.hashValue == id.hashValue)
        #expect(Set([id, decoded, AppID(device: NodeID(device), bundleID: bundleID)]).count == 1)
        let others = [AppID(device: "ipad-1", bundleID: "com.example.a"), AppID(device: "ipad-1", bundleID: "com.example.b"),
                      AppID(device: "ipad-2", bundleID: "com.example.a"), AppID(device: "ipad-1com.", bundleID: "example.a")]
        #expect(others.filter { $0 == id }.count == 1)
        #expect(Set(others).count == 4)
    }

    @Test func interruptionReasonsHaveAVFoundationRawValues() {
        #expect(InterruptionReason.videoDeviceNotAvailableInBackground.rawValue == 1)
        #expect(InterruptionReason.videoDeviceInUseByAnotherClient.rawValue == 3)
        #expect(InterruptionReason.videoDeviceNotAvailableDueToSystemPressure.rawValue == 5)
    }
}
