import Testing
import CamsyncPolicy
@testable import CamsyncConfig

@Suite struct NodeConfigTests {
    @Test func parsesADeviceWithApps() throws {
        let config = try NodeConfig(yaml: """
            id: ipad-1
            kind: device
            device:
              model: iPad Pro
              os: 16
              layoutDirection: rightToLeft
              cameras:
                - { name: front, position: front }
                - { name: back }
              apps:
                - bundleID: com.apple.camera
                  systemCameraApp: true
                - bundleID: com.example.call
                  deploymentTarget: 15
                  multitaskingCameraAccessEntitlement: true
                  backgroundModePiP: true
                  audioSessionCategory: playAndRecord
            """)
        #expect(config.id == "ipad-1")
        guard case .device(let device) = config.registration.attributes else {
            Issue.record("expected a device")
            return
        }
        #expect(device.osMajor == 16)
        #expect(device.layoutDirection == .rightToLeft)
        #expect(device.cameras == [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back)])
        #expect(device.apps.count == 2)
        #expect(device.apps[0].isSystemCameraApp)
        #expect(device.apps[1].deploymentTarget == 15)
        #expect(device.apps[1].hasMultitaskingCameraAccessEntitlement)
        #expect(device.apps[1].audioSessionCategory == .playAndRecord)
    }

    @Test func parsesADisplay() throws {
        let config = try NodeConfig(yaml: """
            id: display-1
            kind: display
            display: { name: Studio, attachedTo: ipad-1, cameras: [ { name: cam } ] }
            """)
        #expect(config.registration.attributes == .display(
            DisplayAttributes(name: "Studio", attachedTo: "ipad-1", cameras: [CameraSpec(name: "cam", position: .external)])))
    }

    @Test(arguments: [
        ("id: x\nkind: phone\n", "'kind' must be 'device' or 'display'"),
        ("id: x\nkind: device\n", "needs a 'device:' section"),
        ("id: x\nkind: device\ndevice: { os: 42 }\n", "os must be 9…26"),
        ("kind: device\n", "missing field 'id'"),
        ("id: x\nkind: device\ndevice: { os: 16, apps: [ { bundleID: a, audioSessionCategory: loud } ] }\n", "audioSessionCategory must be one of"),
        ("id: x\nkind: device\ndevice: { os: 16, apps: [ { bundleID: a }, { bundleID: a } ] }\n", "listed twice"),
        // The engine's own registration rules, checked before anything starts (C14).
        ("id: x\nkind: device\ndevice: { model: \"iPad Pro (12.9-inch, 4th generation)\", os: 17, cameras: [ { name: depth, position: lidarDepth } ] }\n",
         "device 'x' would be refused at registration: iPad Pro (12.9-inch, 4th generation) has no LiDAR scanner, so no LiDAR Depth Camera 'depth' (C14)"),
        ("id: x\nkind: display\ndisplay: { cameras: [ { name: cam }, { name: cam } ] }\n", "camera names must be unique and non-empty"),
    ])
    func badConfigsSayWhy(yaml: String, expected: String) {
        #expect {
            _ = try NodeConfig(yaml: yaml)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }
}
