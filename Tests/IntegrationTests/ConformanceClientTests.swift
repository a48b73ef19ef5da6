import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The conformance client in a second language (a client written from the documents alone): `Tests/Conformance/conformance_client.py`,
/// written from docs/PROTOCOL.md and the .proto files alone (pyzmq + protoc-generated classes), joins a
/// real CURVE cluster over tcp late, follows its device group on its own feed (the group's snapshot,
/// previous pointers, bookmarks, the group's replays), tries the takeover, the foreign attach and a
/// malformed frame, and reads beyond its group (another group's snapshot and replay, the whole state,
/// subscriptions to `ev.`, the empty topic and `all`): refused, and counted by the coordinator.
/// Needs Debian's python3-zmq and python3-protobuf (`make deps`).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct ConformanceClientTests {
    static let python = "/usr/bin/python3"
    static let heartbeatMs: Int64 = 250
    static let liveness: Int64 = 4

    /// The Python client's identity: in the topology so that the coordinator's node-keys file binds a
    /// key to it, but its process is never started (the Python client speaks for it).
    static let pyIPad = """
        id: py-ipad
        kind: device
        device:
          os: 17
          cameras: [ { name: front, position: front } ]
          apps:
            - { bundleID: com.example.pynotes }
            - { bundleID: com.example.pyvideo, backgroundModePiP: true, audioSessionCategory: playback }
        """
    /// A second admitted key the client impersonates with (never started either).
    static let pyIntruder = """
        id: py-intruder
        kind: device
        device:
          os: 17
          apps:
            - { bundleID: com.example.notes }
        """

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test("a Python client written from PROTOCOL.md joins late, follows and replays batches, and is refused takeovers")
    func pythonConformanceClient() async throws {
        let root = Self.repositoryRoot
        let script = root.appendingPathComponent("Tests/Conformance/conformance_client.py").path
        try #require(FileManager.default.fileExists(atPath: script), "missing \(script)")
        // Fail (never skip) when the interpreter lacks the packages the Makefile installs.
        let probe = try Self.run(Self.python, ["-c", "import zmq, google.protobuf; assert zmq.has('curve')"], timeout: 30)
        try #require(probe.status == 0, """
            \(Self.python) cannot import zmq (with CURVE) and google.protobuf: run `make deps` \
            (installs python3-zmq and python3-protobuf)
            \(probe.output)
            """)

        let (topology, dir) = try TestTopology.make(
            [TestTopology.ipad1, TestTopology.ipad2, TestTopology.display1, Self.pyIPad, Self.pyIntruder],
            heartbeatMs: Self.heartbeatMs, liveness: Self.liveness, curve: true, tcp: true)
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: try camsyncBinary())
        let coordinatorHTTP = "127.0.0.1:\(TestTopology.freeTCPPort())"
        cluster.coordinatorArguments = ["--http", coordinatorHTTP]
        defer {
            cluster.stop(grace: 3)
            try? FileManager.default.removeItem(atPath: dir)
        }
        do {
            // Like withCluster, but py-ipad and py-intruder only get keys: waitUntilJoined expects the
            // nodes whose processes run.
            try cluster.startCoordinator()
            for id in ["ipad-1", "ipad-2", "display-1"] { try cluster.startNode(id) }
            try cluster.waitUntilJoined(timeout: 30)
        } catch {
            Issue.record("the cluster did not start: \(error)\n\(Self.logs(cluster))")
            return
        }
        let keys = try #require(cluster.keys)
        // A late joiner: two liveness timeouts pass on the coordinator's own clock before it registers.
        try cluster.waitForHeartbeatIntervals(2 * Int(Self.liveness), timeout: 60)
        let refusedBefore = try HTTPScrape.metrics(coordinatorHTTP)["camsync_group_reads_refused_total"] ?? 0

        let result = try Self.run(Self.python, [
            script,
            "--commands", cluster.commandEndpoint, "--events", cluster.eventEndpoint,
            "--coordinator-key", keys.path("coordinator.pub"),
            "--node-key", keys.path("py-ipad.key"), "--node-id", "py-ipad",
            "--intruder-key", keys.path("py-intruder.key"), "--intruder-id", "py-intruder",
            "--display", "display-1", "--other-group", "ipad-2",
            "--proto-dir", root.appendingPathComponent("proto").path,
            "--deadline", "60",
        ], timeout: 90)
        print("conformance client (exit \(result.status)):\n\(result.output)")
        #expect(result.status == 0, "conformance client failed (exit \(result.status)):\n\(result.output)\n\(Self.logs(cluster))")
        #expect(result.output.contains("OK: 0 failure(s)"), "\(result.output)")
        // Check h asked for four reads beyond its group; check i subscribed to four topics on the event
        // endpoint, its own feed included (a node's feed is pushed on its command connection).
        let refusedAfter = try HTTPScrape.metrics(coordinatorHTTP)["camsync_group_reads_refused_total"] ?? 0
        #expect(refusedAfter - refusedBefore >= 8, "camsync_group_reads_refused_total rose by \(refusedAfter - refusedBefore)")
        let coordinatorLog = (try? String(contentsOfFile: cluster.logPath("coordinator"), encoding: .utf8)) ?? ""
        #expect(coordinatorLog.contains("subscription refused"), "the coordinator logs the refused subscriptions")
    }

    static func logs(_ cluster: LocalCluster) -> String {
        var logs = ""
        for name in ["coordinator", "ipad-1", "ipad-2", "display-1"] {
            let text = (try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8)) ?? ""
            logs += "--- \(name).log (tail)\n" + text.split(separator: "\n").suffix(20).joined(separator: "\n") + "\n"
        }
        return logs
    }

    /// Runs a child process, draining stdout and stderr concurrently (into one transcript), killing it
    /// after `timeout` seconds; always reaps it.
    static func run(_ executable: String, _ arguments: [String], timeout: Double) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let transcript = Locked((out: Data(), err: Data()))
        let drained = DispatchGroup()
        for (pipe, isError) in [(stdout, false), (stderr, true)] {
            let handle = pipe.fileHandleForReading
            drained.enter()
            DispatchQueue.global().async {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    transcript.withLock { if isError { $0.err.append(chunk) } else { $0.out.append(chunk) } }
                }
                drained.leave()
            }
        }
        try process.run()
        // The parent's copies of the write ends must go, or the readers never see end of file.
        try? stdout.fileHandleForWriting.close()
        try? stderr.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        _ = drained.wait(timeout: .now() + 5)
        let (out, err) = transcript.withLock { ($0.out, $0.err) }
        var output = String(decoding: out, as: UTF8.self)
        if !err.isEmpty { output += "--- stderr\n" + String(decoding: err, as: UTF8.self) }
        if timedOut { output += "--- killed after \(timeout) s\n" }
        return (timedOut ? -1 : process.terminationStatus, output)
    }
}
