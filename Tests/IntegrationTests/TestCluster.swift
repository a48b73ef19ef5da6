import CamsyncCluster
import CamsyncNode
import CamsyncPolicy
import Foundation
import Testing
import ZeroMQ

/// The `camsync` binary built next to this test bundle.
func camsyncBinary() throws -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let candidate = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("camsync").path
    guard FileManager.default.isExecutableFile(atPath: candidate) else {
        throw ClusterWaitError(message: "camsync binary not found at \(candidate): run `swift build` first")
    }
    return candidate
}

/// Runs a blocking test body. It runs inline, in the test's own task, so expectations are
/// attributed to the test; integration suites are `.serialized`, so at most a couple of
/// bodies block cooperative threads at once, and none of them awaits anything.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try body()
}

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

    /// An unused loopback TCP port (bound and released by the kernel's ephemeral allocator).
    static func freeTCPPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

enum YAMLNodeFile {
    static func parse(_ yaml: String) throws -> NodeConfig.File { try NodeConfig.parseFile(yaml: yaml) }
}

/// Starts a cluster from a topology, runs `body` off the cooperative pool, and always stops every process.
func withCluster<T: Sendable>(
    _ nodes: [String] = [TestTopology.ipad1, TestTopology.ipad2, TestTopology.display1],
    heartbeatMs: Int64 = 250, liveness: Int64 = 4, curve: Bool = false, tcp: Bool = false,
    _ body: @escaping @Sendable (LocalCluster) throws -> T
) async throws -> T {
    try await offPool {
        let (topology, dir) = try TestTopology.make(nodes, heartbeatMs: heartbeatMs, liveness: liveness, curve: curve, tcp: tcp)
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: try camsyncBinary())
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
}
