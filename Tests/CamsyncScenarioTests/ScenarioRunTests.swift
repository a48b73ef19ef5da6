import CamsyncScenario
import CamsyncPolicy
import CamsyncTestSupport
import Foundation
import Testing

/// Runs every file in `scenarios/` against real processes (local mode, ipc endpoints in a temp dir).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(4)))
struct ScenarioRunTests {
    static func run(_ scenario: Scenario) async throws -> ScenarioReport {
        let binary = try camsyncBinary()
        return try await offPool {
            ScenarioRunner(mode: .local(executable: binary)).run(scenario)
        }
    }

    /// A failed run keeps its directory for a person to read; a test that made it fail on purpose removes it.
    static func remove(_ report: ScenarioReport) {
        if let directory = report.runDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("every scenario file passes against a real cluster", arguments: scenarioFiles())
    func scenarioPasses(_ file: String) async throws {
        let scenario = try Scenario(path: scenariosDirectory + "/" + file)
        let started = Date()
        let report = try await Self.run(scenario)
        #expect(report.passed, "\(report)")
        #expect(report.steps.count == scenario.steps.count)
        #expect(report.runDirectory == nil, "a passed run in a temporary directory is removed, and its report names none")
        #expect(Date().timeIntervalSince(started) < 120, "\(file) took \(Date().timeIntervalSince(started)) s")
    }

    @Test("a wrong expectation fails with expected vs actual and the node's app events")
    func wrongExpectationGivesReadableDiff() async throws {
        let scenario = try Scenario(yaml: """
            name: wrong on purpose
            rules: [C4]
            seeds: ["001"]
            topology:
              nodes:
                - id: ipad-1
                  kind: device
                  device:
                    os: 16
                    cameras: [ { name: front } ]
                    apps: [ { bundleID: com.apple.camera, systemCameraApp: true }, { bundleID: com.example.videocall } ]
            steps:
              - act: { node: ipad-1, do: ["open com.example.videocall", "session configure com.example.videocall --camera front", "session start com.example.videocall"] }
              - act: { node: ipad-1, do: "open com.apple.camera" }
                within_ms: 500
                expect:
                  - { app: ipad-1/com.example.videocall, session: running }
                  - { node: ipad-1, app: com.example.videocall, events: [interruptionEnded] }
              - act: { node: ipad-1, do: home }
            """)
        let report = try await Self.run(scenario)
        #expect(!report.passed)
        #expect(report.steps.map(\.status) == [.passed, .failed, .notRun])
        let kept = try #require(report.runDirectory, "a failed run keeps its logs")
        #expect(FileManager.default.fileExists(atPath: kept), "the directory the report names exists")
        defer { try? FileManager.default.removeItem(atPath: kept) }
        let text = report.failureText
        #expect(text.contains("step 2 (line 14): ipad-1 open com.apple.camera — FAILED"), "\(text)")
        #expect(text.contains("✗ session of ipad-1/com.example.videocall is running"), "\(text)")
        #expect(text.contains("expected: running"), "\(text)")
        // An effective state (seed 001): Camera.app preempted the call (reason 3); the session is set to run again by the user.
        // The call goes to background when Camera.app opens full screen, so its reason is 1 (C2.1 comes before C2.6).
        #expect(text.contains("actual:   interrupted(1 videoDeviceNotAvailableInBackground) (wants to run)"), "\(text)")
        #expect(text.contains("missing interruptionEnded"), "\(text)")
        #expect(text.contains("app events on ipad-1 since the step began"), "\(text)")
        #expect(text.contains("com.example.videocall wasInterrupted reason=videoDeviceNotAvailableInBackground raw=1"), "\(text)")
        #expect(text.contains("com.apple.camera cameraGranted"), "\(text)")
        #expect("\(report)".contains("FAIL"))
    }

    @Test("an unexpected refusal, and a refusal that does not come, fail with the reason")
    func refusals() async throws {
        let scenario = try Scenario(yaml: """
            name: refusals
            rules: [L4]
            topology:
              nodes:
                - { id: ipad-1, kind: device, device: { os: 16, apps: [ { bundleID: com.example.game, requiresFullScreen: true }, { bundleID: com.example.notes } ] } }
            steps:
              - act: { node: ipad-1, do: "open com.example.notes" }
                expect_refusal: { code: requiresFullScreen }
            """)
        let report = try await Self.run(scenario)
        defer { Self.remove(report) }
        #expect(report.failureText.contains("expected: the coordinator refuses `open com.example.notes` (code requiresFullScreen)"), "\(report)")
        #expect(report.failureText.contains("actual:   it was accepted"), "\(report)")

        var second = scenario
        second.steps[0] = try Scenario(yaml: """
            name: refusals
            topology:
              nodes:
                - { id: ipad-1, kind: device, device: { os: 16, apps: [ { bundleID: com.example.game, requiresFullScreen: true }, { bundleID: com.example.notes } ] } }
            steps:
              - act: { node: ipad-1, do: ["open com.example.notes", "slide-over com.example.game"] }
            """).steps[0]
        let report2 = try await Self.run(second)
        defer { Self.remove(report2) }
        #expect(report2.failureText.contains("expected: `slide-over com.example.game` on ipad-1 is accepted"), "\(report2)")
        #expect(report2.failureText.contains("requiresFullScreen"), "\(report2)")
    }

    @Test("against an already-running cluster, kill and restart steps are refused with a clear message")
    func remoteRefusesProcessSteps() async throws {
        let scenario = try Scenario(yaml: """
            name: remote
            topology:
              nodes:
                - { id: ipad-1, kind: device, device: { os: 16 } }
            steps:
              - kill: ipad-1
            """)
        let report = ScenarioRunner(mode: .remote(RemoteCluster(commands: "ipc:///nonexistent/c.sock", events: "ipc:///nonexistent/e.sock",
                                                                 controls: ["ipad-1": "ipc:///nonexistent/ipad-1.sock"]))).run(scenario)
        #expect(!report.passed)
        #expect(report.failureText.contains("step 1 (line 6): kill -9 ipad-1 needs processes the runner started: run this scenario with --local"),
                "\(report.failureText)")
    }
}
