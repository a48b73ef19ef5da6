import CamsyncPolicy

/// The soak's cluster: three iPads (two on iPadOS 16, one on 15) and three displays with cameras,
/// so that several apps contend for each camera system, including display cameras and PiP apps,
/// and for each device's audio (a music player, an ambient game, the call's microphone, A1–A8).
package enum SoakTopology {
    package static let devices: [String] = ["ipad-1", "ipad-2", "ipad-3"]
    /// The coordinators of an HA soak.
    package static let coordinatorNames = ["c1", "c2", "c3"]
    package static let displays: [(id: String, device: String)] = [("display-1", "ipad-1"), ("display-2", "ipad-2"), ("display-3", "ipad-1")]
    package static let apps: [String] = [
        "com.apple.camera", "com.example.videocall", "com.example.recorder", "com.example.scanner",
        "com.example.player", "com.example.notes", "com.example.music", "com.example.game",
    ]

    /// `lab`: when set, every process runs in its own network namespace of the lab (coordinator in
    /// `PREFIX-coord`, node i in `PREFIX-h(i+1)`), talking TCP; local tools use the ipc endpoints.
    /// `haDirectory`: HA mode (SPEC K6): three coordinators on ipc endpoints there, on 3 local etcd members.
    package static func yaml(commands: String, events: String, heartbeatMs: Int64, liveness: Int64,
                     lab: (prefix: String, localCommands: String, localEvents: String)? = nil,
                     haDirectory: String? = nil) -> String {
        var coordinator = "coordinator: { commands: \(commands), events: \(events), durability: full"
        if let lab {
            coordinator += ", host: \(lab.prefix)-coord, localCommands: \(lab.localCommands), localEvents: \(lab.localEvents)"
        }
        coordinator += " }"
        if let dir = haDirectory {
            coordinator = (["etcd: { members: 3, leaseSeconds: 2 }", "coordinators:"] + coordinatorNames.map {
                "  - { name: \($0), commands: ipc://\(dir)/\($0)-commands.sock, events: ipc://\(dir)/\($0)-events.sock }"
            }).joined(separator: "\n")
        }
        var lines = [
            "name: soak",
            coordinator,
            "settings: { heartbeatMs: \(heartbeatMs), liveness: \(liveness), pipRestoreDeadlineMs: 500 }",
            "nodes:",
        ]
        for (index, device) in devices.enumerated() {
            let os = index == 2 ? 15 : 16
            lines += [
                "  - id: \(device)", "    kind: device",
                lab.map { "    host: \($0.prefix)-h\(index + 1)" } ?? "",
                "    device:", "      os: \(os)",
                // C14: ipad-1 is a model with MultiCam (docs/POLICY.md's list).
                "      model: \(index == 0 ? "iPad Pro (12.9-inch, 6th generation)" : "iPad Air (4th generation)")",
                "      multitaskingCameraSupported: \(os >= 16)", "      stageManagerSupported: \(os >= 16)",
                "      stageManagerEnabled: \(os >= 16)",
                "      cameras: [ { name: front, position: front }, { name: back, position: back }, { name: telephoto, position: telephoto } ]",
                "      apps:",
                "        - { bundleID: com.apple.camera, systemCameraApp: true, audioSessionCategory: playAndRecord }",
                "        - { bundleID: com.example.videocall, backgroundModePiP: true, audioSessionCategory: playAndRecord }",
                "        - { bundleID: com.example.recorder, deploymentTarget: 15, multitaskingCameraAccessEntitlement: true }",
                "        - { bundleID: com.example.scanner }",
                "        - { bundleID: com.example.player, backgroundModePiP: true, audioSessionCategory: playback, memoryMB: 150 }",
                "        - { bundleID: com.example.notes }",
                "        - { bundleID: com.example.music, backgroundModePiP: true, audioSessionCategory: playback }",
                "        - { bundleID: com.example.game, audioSessionCategory: ambient }",
            ]
        }
        for (index, display) in displays.enumerated() {
            lines += ["  - id: \(display.id)", "    kind: display",
                      lab.map { "    host: \($0.prefix)-h\(devices.count + index + 1)" } ?? "",
                      "    display: { attachedTo: \(display.device), cameras: [ { name: cam, position: external } ] }"]
        }
        return lines.filter { !$0.isEmpty }.joined(separator: "\n") + "\n"
    }
}
