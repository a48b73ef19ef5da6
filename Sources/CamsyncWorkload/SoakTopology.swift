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

    /// Where each process of an HA soak in the lab runs: etcd members on hosts 1–3, coordinators on
    /// 4–6, the nodes on the hosts after them.
    package static let etcdHosts = [1, 2, 3]
    package static let coordinatorHosts = [4, 5, 6]
    package static func nodeHost(_ index: Int, highAvailability: Bool) -> Int { (highAvailability ? 7 : 1) + index }
    package static func labHosts(highAvailability: Bool) -> Int {
        nodeHost(devices.count + displays.count - 1, highAvailability: highAvailability)
    }

    /// `lab`: when set, every process runs in its own network namespace of the lab (`PREFIX-hI`,
    /// addresses `SUBNET.(10+I)`; an embedded coordinator in `PREFIX-coord`, `SUBNET.1`), talking TCP;
    /// local tools use the ipc endpoints in `directory`. `highAvailability`: three coordinators on
    /// three etcd members (SPEC K6), on ipc endpoints in `directory` without a lab.
    package static func yaml(commands: String, events: String, heartbeatMs: Int64, liveness: Int64,
                     lab: (prefix: String, subnet: String)? = nil, directory: String = "", highAvailability: Bool = false) -> String {
        var coordinator = "coordinator: { commands: \(commands), events: \(events), durability: full"
        if let lab {
            coordinator += ", host: \(lab.prefix)-coord, localCommands: ipc://\(directory)/coordinator.sock, "
                + "localEvents: ipc://\(directory)/events.sock"
        }
        coordinator += " }"
        if highAvailability, let lab {
            let address = { (host: Int) in "\(lab.subnet).\(10 + host)" }
            let members = etcdHosts.map { "{ host: \(lab.prefix)-h\($0), address: \(address($0)) }" }.joined(separator: ", ")
            coordinator = (["etcd: { members: 3, leaseSeconds: 2, memberHosts: [ \(members) ] }", "coordinators:"]
                + zip(coordinatorNames, coordinatorHosts).map { name, host in
                    "  - { name: \(name), commands: tcp://\(address(host)):5555, events: tcp://\(address(host)):5556, "
                        + "host: \(lab.prefix)-h\(host), localCommands: ipc://\(directory)/\(name)-commands.sock, "
                        + "localEvents: ipc://\(directory)/\(name)-events.sock }"
                }).joined(separator: "\n")
        } else if highAvailability {
            coordinator = (["etcd: { members: 3, leaseSeconds: 2 }", "coordinators:"] + coordinatorNames.map {
                "  - { name: \($0), commands: ipc://\(directory)/\($0)-commands.sock, events: ipc://\(directory)/\($0)-events.sock }"
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
                lab.map { "    host: \($0.prefix)-h\(nodeHost(index, highAvailability: highAvailability))" } ?? "",
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
                      lab.map { "    host: \($0.prefix)-h\(nodeHost(devices.count + index, highAvailability: highAvailability))" } ?? "",
                      "    display: { attachedTo: \(display.device), cameras: [ { name: cam, position: external } ] }"]
        }
        return lines.filter { !$0.isEmpty }.joined(separator: "\n") + "\n"
    }
}
