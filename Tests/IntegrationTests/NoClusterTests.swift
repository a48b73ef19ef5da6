import CamsyncProcessLab
import Foundation
import Testing

/// `ctl -f TOPOLOGY` before any `cluster up`: the user is told that no such cluster runs from that
/// run directory, how to start one, and what chooses the directory — not a missing file's name
/// and a usage line.
@Suite struct NoClusterTests {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    @Test("ctl status -f lab.yaml with no cluster up names the run directory CAMSYNC_RUN_DIR chose and `cluster up`")
    func statusWithoutACluster() throws {
        let base = "\(NSTemporaryDirectory())camsync-nocluster-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let lab = "\(Self.repository)/deploy/topologies/lab.yaml"
        let run = try runCommand(try camsyncBinary(), ["ctl", "status", "-f", lab], environment: ["CAMSYNC_RUN_DIR": base],
                                 timeout: 60)
        #expect(run.status != 0)
        #expect(run.output.contains("no cluster `lab` runs from the run directory \(base)/lab"), "\(run.output)")
        #expect(run.output.contains("CAMSYNC_RUN_DIR=\(base) chose it"), "\(run.output)")
        #expect(run.output.contains("camsync cluster up \(lab)"), "\(run.output)")
        #expect(!run.output.contains("Usage:"), "\(run.output)")
        #expect(!run.output.contains("The file doesn"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: base), "nothing was created for a cluster that does not run")
    }

    /// After `cluster down` (or a crash) the run directory keeps the coordinators' logs and keys, and
    /// no coordinator runs: `ctl -f` says the cluster is not running and how to start it and read how
    /// it ended, instead of waiting on endpoints nobody listens to.
    @Test("ctl status -f lab.yaml after the cluster went down says it is not running")
    func statusAfterTheClusterWentDown() throws {
        let base = "\(NSTemporaryDirectory())camsync-down-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let run = "\(base)/lab"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        try "coordinator stopped\n".write(toFile: "\(run)/coordinator.log", atomically: true, encoding: .utf8)
        try "999999999\n".write(toFile: "\(run)/coordinator.pid", atomically: true, encoding: .utf8)   // a dead pid
        let lab = "\(Self.repository)/deploy/topologies/lab.yaml"
        let result = try runCommand(try camsyncBinary(), ["ctl", "status", "-f", lab], environment: ["CAMSYNC_RUN_DIR": base],
                                    timeout: 60)
        #expect(result.status != 0)
        #expect(result.output.contains("cluster `lab` is not running: none of its coordinators runs from \(run)"), "\(result.output)")
        #expect(result.output.contains("camsync cluster up \(lab)"), "\(result.output)")
        #expect(result.output.contains("camsync cluster logs \(lab) coordinator"), "\(result.output)")
        #expect(!result.output.contains("Usage:"), "\(result.output)")
    }
}
