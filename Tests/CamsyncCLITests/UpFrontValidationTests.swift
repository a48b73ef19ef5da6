import Foundation
import Testing
@testable import camsync

/// Files that cannot work are refused before anything starts, by the rules the coordinator's engine
/// applies at registration (docs/OPERATIONS.md "Topology files").
@Suite struct UpFrontValidationTests {
    @Test("cluster up refuses a LiDAR camera on an iPad Pro (4th generation) before starting a process (C14)")
    func clusterUpRefusesWhatRegistrationWould() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-upfront-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let topology = "\(dir)/lidar.yaml"
        try """
            name: lidar
            coordinator: { commands: tcp://127.0.0.1:1, events: tcp://127.0.0.1:2 }
            nodes:
              - id: ipad-1
                kind: device
                device:
                  model: iPad Pro (12.9-inch, 4th generation)
                  os: 17
                  cameras: [ { name: back, position: back }, { name: depth, position: lidarDepth } ]
            """.write(toFile: topology, atomically: true, encoding: .utf8)
        let run = "\(dir)/run"
        let command = try #require(try Camsync.parseAsRoot(["cluster", "up", topology, "--run-dir", run]) as? ClusterUpCommand)
        do {
            try command.run()
            Issue.record("cluster up started a topology whose node the coordinator would refuse")
        } catch {
            let message = "\(error)"
            #expect(message.contains("node 'ipad-1'"), "\(message)")
            #expect(message.contains("iPad Pro (12.9-inch, 4th generation) has no LiDAR scanner, so no LiDAR Depth Camera 'depth' (C14)"),
                    "\(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: run), "nothing started: no run directory")
    }
}
