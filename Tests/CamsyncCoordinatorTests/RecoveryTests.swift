import CamsyncClient
import CamsyncPolicy
import CamsyncTestSupport
import Foundation
import Logging
import Testing
import ZeroMQ
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// K3 with real sockets and the real journal: snapshots plus the commands after them restore the
/// exact state; the term increments; tokens continue; retries are still recognised.
@Suite(.ownThreads, .serialized) struct RecoveryTests {
    static let device = DeviceAttributes(model: "iPad", osMajor: 16, cameras: [CameraSpec(name: "front", position: .front)],
                                         apps: [AppSpec(bundleID: "a"), AppSpec(bundleID: "b")])

    func settings(_ dir: String) -> CoordinatorSettings {
        CoordinatorSettings(commandEndpoint: "ipc://\(dir)/c.sock", eventEndpoint: "ipc://\(dir)/e.sock", dataDirectory: dir,
                            heartbeatIntervalMilliseconds: 60_000, snapshotEvery: 5)
    }

    @Test("restart from snapshot + journal gives the same state, a higher term, and continuing tokens (K3, C8, K5)")
    func restartFromSnapshot() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-rec-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = AppID(device: "ipad-1", bundleID: "a"), b = AppID(device: "ipad-1", bundleID: "b")
        let camera = CameraID(host: "ipad-1", name: "front")
        var commands: [Command] = [.registerNode(NodeRegistration(node: "ipad-1", attributes: .device(Self.device))),
                                   .openFullScreen(b, trigger: .user), .configureSession(b, SessionConfiguration(camera: camera)),
                                   .openFullScreen(a, trigger: .user), .configureSession(a, SessionConfiguration(camera: camera)),
                                   .startSession(a)]
        for _ in 0..<9 { commands += [.openFullScreen(b, trigger: .user), .startSession(b), .openFullScreen(a, trigger: .user)] }

        let first = try CoordinatorServer(settings: settings(dir), logger: Logger(label: "test"))
        try first.start()
        let context = try ZMQContext()
        let client = try CoordinatorClient(context: context, endpoint: "ipc://\(dir)/c.sock", sender: "admin")
        var lastRequest: UInt64 = 0
        for (index, command) in commands.enumerated() {
            lastRequest = UInt64(1000 + index)
            try client.send(command, requestID: lastRequest)
        }
        let before = try client.snapshot()
        client.close()
        first.stop()
        #expect(try Journal(directory: dir).latestSnapshot() != nil, "snapshots were written every 5 commands")

        let second = try CoordinatorServer(settings: settings(dir), logger: Logger(label: "test"))
        try second.start()
        defer { second.stop() }
        let again = try CoordinatorClient(context: context, endpoint: "ipc://\(dir)/c.sock", sender: "admin")
        defer { again.close() }
        let after = try again.snapshot()
        #expect(after.state == before.state)
        #expect(after.sequence == before.sequence)
        #expect(after.term == before.term + 1)
        // The last request is still recognised as a retry across the restart (K5).
        #expect(try again.send(commands.last!, requestID: lastRequest) == before.sequence)
        // Tokens continue from where they were (C8).
        let tokenBefore = try #require(before.state.cameraSystems[.builtIn(device: "ipad-1")]?.lastToken)
        try again.send(.openFullScreen(b, trigger: .user))
        let final = try again.snapshot()
        #expect(try #require(final.state.cameraSystems[.builtIn(device: "ipad-1")]?.lastToken) > tokenBefore)
    }
}
