import CamsyncProcessLab
import CamsyncTopology
import CamsyncConfig
import CamsyncPolicy
import Foundation
import Testing
import ZeroMQ

/// The `camsync` binary built next to this test bundle.
func camsyncBinary() throws -> String { try CamsyncExecutable.besideThisProcess() }

/// Standard test topologies: ipc endpoints in a fresh temp dir, so tests never collide.
enum TestTopology {
    static let ipad1 = """
        id: ipad-1
        kind: device
        device:
          os: 16
          stageManagerEnabled: true
          cameras: [ { name: front, position: front }, { name: back, position: back } ]
          apps:
            - { bundleID: com.apple.camera, systemCameraApp: true, audioSessionCategory: playAndRecord }
            - { bundleID: com.example.videocall, backgroundModePiP: true, audioSessionCategory: playAndRecord }
            - { bundleID: com.example.recorder }
            - { bundleID: com.example.notes }
            - { bundleID: com.example.scanner }
        """
    static let ipad2 = """
        id: ipad-2
        kind: device
        device:
          os: 15
          multitaskingCameraSupported: false
          stageManagerSupported: false
          cameras: [ { name: front, position: front } ]
          apps:
            - { bundleID: com.apple.camera, systemCameraApp: true }
            - { bundleID: com.example.videocall, deploymentTarget: 15, backgroundModePiP: true, audioSessionCategory: playAndRecord }
            - { bundleID: com.example.notes }
        """
    static let display1 = """
        id: display-1
        kind: display
        display: { name: Studio Display, attachedTo: ipad-1, cameras: [ { name: center-stage, position: external } ] }
        """

    static func make(_ nodes: [String] = [ipad1, ipad2, display1], heartbeatMs: Int64 = 250, liveness: Int64 = 4,
                     curve: Bool = false, tcp: Bool = false) throws -> (Topology, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-it-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let commands: String, events: String
        if tcp {
            let (a, b) = (freeTCPPort(), freeTCPPort())
            commands = "tcp://127.0.0.1:\(a)"
            events = "tcp://127.0.0.1:\(b)"
        } else {
            commands = "ipc://\(dir)/coordinator-commands.sock"
            events = "ipc://\(dir)/coordinator-events.sock"
        }
        let parsed = try nodes.map { yaml in Topology.Node(config: try YAMLNodeFile.parse(yaml)) }
        let topology = Topology(name: "it", coordinator: .init(commands: commands, events: events),
                                settings: .init(heartbeatMs: heartbeatMs, liveness: liveness),
                                security: .init(curve: curve), nodes: parsed)
        return (topology, dir)
    }

    static func freeTCPPort() -> Int { LoopbackPorts.free() }
}

extension LocalCluster {
    /// The PiP video call the handoff tests start from, on ipad-1: the call opens full screen
    /// (`activatingAudio`: and activates its audio session), configures its session on the front
    /// camera with multitasking camera access, sets up a video-call PiP controller, starts its
    /// session and (`startingPiP`) starts PiP; then the actions of `then`, in order.
    func startPiPVideoCall(activatingAudio: Bool = false, startingPiP: Bool = true, then more: [Command] = []) throws {
        var commands: [Command] = [.openFullScreen(Apps.call1, trigger: .user)]
        if activatingAudio { commands.append(.activateAudioSession(Apps.call1)) }
        commands += [
            .configureSession(Apps.call1, SessionConfiguration(camera: Apps.front1, multitaskingCameraAccessEnabled: true)),
            .setupPiP(Apps.call1, PiPControllerSetup(kind: .videoCall)),
            .startSession(Apps.call1),
        ]
        if startingPiP { commands.append(.startPiP(Apps.call1, trigger: .user)) }
        try act("ipad-1", commands + more)
    }
}

enum YAMLNodeFile {
    static func parse(_ yaml: String) throws -> NodeConfig.File { try NodeConfig.parseFile(yaml: yaml) }
}

/// Starts a cluster from a topology, runs `body`, and always stops every process. The body blocks
/// (sockets, processes) and runs inline in the test's own task, so its expectations are attributed
/// to the test; integration suites are `.serialized`, and a body never awaits anything.
func withCluster<T: Sendable>(
    _ nodes: [String] = [TestTopology.ipad1, TestTopology.ipad2, TestTopology.display1],
    heartbeatMs: Int64 = 250, liveness: Int64 = 4, curve: Bool = false, tcp: Bool = false,
    prepare: (LocalCluster) throws -> Void = { _ in },
    _ body: (LocalCluster) throws -> T
) async throws -> T {
    let (topology, dir) = try TestTopology.make(nodes, heartbeatMs: heartbeatMs, liveness: liveness, curve: curve, tcp: tcp)
    let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: try camsyncBinary())
    try prepare(cluster)
    defer {
        cluster.stop(grace: 3)
        try? FileManager.default.removeItem(atPath: dir)
    }
    do {
        try cluster.start(timeout: 30)
        return try body(cluster)
    } catch {
        var logs = ""
        for name in ["coordinator"] + topology.nodes.map(\.id) {
            let text = (try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8)) ?? ""
            logs += "--- \(name).log (tail)\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n") + "\n"
        }
        throw ClusterWaitError(message: "\(error)\n\(logs)")
    }
}
