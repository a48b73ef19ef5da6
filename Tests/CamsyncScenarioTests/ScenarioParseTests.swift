import CamsyncScenario
import CamsyncPolicy
import Foundation
import Testing

@Suite struct ScenarioParseTests {
    static let header = """
        name: t
        rules: [C4]
        seeds: ["001"]
        topology:
          nodes:
            - { id: ipad-1, kind: device, device: { os: 16, cameras: [ { name: front } ], apps: [ { bundleID: com.example.a } ] } }
            - { id: display-1, kind: display, display: { attachedTo: ipad-1, cameras: [ { name: cam } ] } }
        steps:

        """

    static func parse(_ steps: String) throws(ScenarioParseError) -> Scenario {
        try Scenario(yaml: header + steps)
    }

    @Test("every scenario file parses, cites rules and seeds")
    func everyFileParses() throws {
        let files = scenarioFiles()
        #expect(files.count >= 6)
        for file in files {
            let scenario = try Scenario(path: scenariosDirectory + "/" + file)
            #expect(!scenario.rules.isEmpty, "\(file) cites its rules")
            #expect(!scenario.seeds.isEmpty, "\(file) cites its seeds")
            let text = try String(contentsOfFile: scenariosDirectory + "/" + file, encoding: .utf8)
            #expect(text.hasPrefix("#"), "\(file) starts with a comment citing its rules")
        }
    }

    @Test("together the scenarios cover every SPEC rule id")
    func everyRuleCovered() throws {
        var covered = Set<String>()
        for file in scenarioFiles() { covered.formUnion(try Scenario(path: scenariosDirectory + "/" + file).rules) }
        let all = (1...6).map { "L\($0)" } + (1...10).map { "C\($0)" } + (1...3).map { "S\($0)" } + (1...2).map { "R\($0)" }
            + (1...9).map { "P\($0)" } + (1...5).map { "K\($0)" } + (1...8).map { "A\($0)" }
        #expect(Set(all).subtracting(covered).sorted() == [])
    }

    @Test("every step kind and every check kind")
    func everyKind() throws {
        let scenario = try Self.parse("""
              - act: { node: ipad-1, do: "open com.example.a" }
                expect:
                  - { app: ipad-1/com.example.a, session: running, scene: fullScreen, role: primary, pip: active, pip_screen: ipad-1, pip_frame: "1,2,3,4" }
                  - { app: ipad-1/com.example.a, session: "interrupted(3)" }
                  - { app: ipad-1/com.example.a, session: "interrupted(videoDeviceNotAvailableWithMultipleForegroundApps)", scene: stage(display-1), role: none }
                  - { camera: ipad-1/builtin, holder: none, token: 2, pressure: serious }
                  - { camera: display-1/cam, holder: ipad-1/com.example.a }
                  - { fence: ipad-1/builtin, holder: ipad-1/com.example.a, token: 3 }
                  - { node: ipad-1, events: ["wasInterrupted(3)", interruptionEnded], no_events: [recordingQualityAlert] }
                  - { node: ipad-1, app: com.example.a, events: [cameraGranted] }
                  - { node: ipad-1, alive: false, multitasking: true }
                  - { display: display-1, attached_to: none }
                  - { display: display-1, attached_to: ipad-1 }
                  - { alert_shown: ipad-1 }
                  - { alert_shown: ipad-1, shown: false }
                  - { replicas_agree: true }
              - act: { node: ipad-1, do: "split com.example.a left" }
                expect_refusal: { code: requiresFullScreen }
              - act: { node: ipad-1, do: ["home", "home"] }
              - act: { node: ipad-1, do: "home" }
                expect_refusal: { message: "not allowed" }
              - kill: display-1
              - pause: ipad-1
              - resume: ipad-1
              - restart: display-1
              - kill_coordinator:
              - restart_coordinator:
              - wait_for: { node: ipad-1, app: com.example.a, event: wasInterrupted, reason: 3, within_ms: 5000 }
              - sleep_ms: 10
              - concurrent: [ { node: ipad-1, do: home }, { node: display-1, do: detach } ]
              - retry_same_request: { node: ipad-1, do: home, times: 3 }
              - expect: [ { replicas_agree: true } ]
                within_ms: 100
                note: only checks
            """)
        #expect(scenario.steps.count == 15)
        #expect(scenario.steps[0].expectations.count == 20)
        #expect(scenario.settings.heartbeatMs == 250 && scenario.settings.liveness == 4)
        guard case .act(let acts, let refusal) = scenario.steps[1].action else { Issue.record("step 2 is an act"); return }
        #expect(acts.first?.command == .split(AppID(device: "ipad-1", bundleID: "com.example.a"), side: .left))
        #expect(refusal == .code("requiresFullScreen"))
        guard case .waitFor(let wait) = scenario.steps[10].action else { Issue.record("step 11 is wait_for"); return }
        #expect(wait.event == Scenario.EventPattern(name: "wasInterrupted", detail: "3") && wait.app == "com.example.a")
        guard case .retrySameRequest(_, let times) = scenario.steps[13].action else { Issue.record("step 14 retries"); return }
        #expect(times == 3)
        guard case .check = scenario.steps[14].action else { Issue.record("step 15 only checks"); return }
        #expect(scenario.steps[14].withinMilliseconds == 100)
        #expect(scenario.steps[4].action.needsLocalCluster && !scenario.steps[0].action.needsLocalCluster)
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var steps: String
        var message: String
        var testDescription: String { message }
    }

    @Test(arguments: [
        Bad(steps: "  - act: { node: ipad-1, do: \"split com.example.a\" }", message: "step 1 (line 9): act.do: 'split com.example.a': `split` needs a side: left or right"),
        Bad(steps: "  - act: { node: ipad-9, do: home }", message: "step 1 (line 9): act.node: no node 'ipad-9' in the topology"),
        Bad(steps: "  - act: { do: home }", message: "step 1 (line 9): act.node: missing"),
        Bad(steps: "  - kill: ipad-1\n  - explode: ipad-1", message: "step 2 (line 10): explode: unknown field"),
        Bad(steps: "  - kill: ipad-1\n    pause: ipad-1", message: "step 1 (line 9): kill/pause: a step does one thing"),
        Bad(steps: "  - kill: ipad-1\n    expect_refusal: { code: x }", message: "step 1 (line 9): expect_refusal: only an `act` step"),
        Bad(steps: "  - expect: [ { app: ipad-1/com.example.a, session: sleeping } ]", message: "step 1 (line 9): expect[0].session: 'sleeping' is not a session state"),
        Bad(steps: "  - expect: [ { app: ipad-1/com.example.a, session: \"interrupted(9)\" } ]", message: "expect[0].session: 'interrupted(9)' is not a session state"),
        Bad(steps: "  - expect: [ { app: com.example.a, session: running } ]", message: "expect[0].app: must be NODE/BUNDLE"),
        Bad(steps: "  - expect: [ { app: ipad-1/com.example.a, scene: floating } ]", message: "expect[0].scene: 'floating' is not a scene"),
        Bad(steps: "  - expect: [ { app: ipad-1/com.example.a, role: boss } ]", message: "expect[0].role: 'boss' is not a role"),
        Bad(steps: "  - expect: [ { app: ipad-1/com.example.a, pip: floating } ]", message: "expect[0].pip: 'floating' is not a PiP state"),
        Bad(steps: "  - expect: [ { app: ipad-1/com.example.a, colour: red } ]", message: "expect[0].colour: not a field of a `app` check"),
        Bad(steps: "  - expect: [ { camera: ipad-1, holder: none } ]", message: "expect[0].camera: must be NODE/builtin or NODE/CAMERA"),
        Bad(steps: "  - expect: [ { camera: ipad-1/builtin } ]", message: "expect[0]: a camera check needs holder, token or pressure"),
        Bad(steps: "  - expect: [ { node: ipad-1, events: [\"was interrupted\"] } ]", message: "expect[0].events: 'was interrupted' is not an event"),
        Bad(steps: "  - expect: [ { node: ipad-1, alive: maybe } ]", message: "expect[0].alive: must be true or false"),
        Bad(steps: "  - expect: [ { weather: sunny } ]", message: "expect[0]: unknown check"),
        Bad(steps: "  - expect: [ { replicas_agree: false } ]", message: "expect[0].replicas_agree: only `true`"),
        Bad(steps: "  - wait_for: { node: ipad-1 }", message: "step 1 (line 9): wait_for.event: missing"),
        Bad(steps: "  - sleep_ms: -1", message: "sleep_ms: must be 0…60000"),
        Bad(steps: "  - retry_same_request: { node: ipad-1, do: home, times: 1 }", message: "retry_same_request.times: must be a whole number ≥ 2"),
        Bad(steps: "  - concurrent: [ { node: ipad-1, do: home } ]", message: "concurrent: must list two or more"),
        Bad(steps: "  - note: nothing", message: "step 1 (line 9): step: nothing to do"),
        Bad(steps: "  - act: { node: ipad-1, do: [home, home] }\n    expect_refusal: x", message: "expect_refusal: needs exactly one action"),
    ])
    func badStepsNameStepAndField(_ bad: Bad) {
        do {
            _ = try Self.parse(bad.steps)
            Issue.record("parsed")
        } catch {
            #expect(error.message.contains(bad.message), "\(error.message)")
        }
    }

    @Test func badTopLevel() {
        let cases: [(String, String)] = [
            ("rules: [C4]\ntopology: { nodes: [] }\nsteps: []", "missing field 'name'"),
            ("name: x\nrules: [Q9]\ntopology: { nodes: [] }\nsteps: []", "'rules' lists 'Q9', which is not a SPEC rule id"),
            ("name: x\nsteps: [ { kill_coordinator: } ]", "missing field 'topology'"),
            ("name: x\ntopology: { nodes: [ { id: a, kind: toaster } ] }\nsteps: [ { kill_coordinator: } ]", "topology.nodes[0] (line 2): 'kind' must be 'device' or 'display'"),
            ("name: x\ntopology: { nodes: [ { id: a, kind: device } ] }\nsteps: [ { kill_coordinator: } ]", "topology.nodes[0] (line 2): kind 'device' needs a 'device:' section"),
            ("name: x\ntopology: { nodes: [ { id: a, kind: display } ] }\nsteps: []", "'steps' must list at least one step"),
            ("name: x\ntopology: { nodes: [ { id: a, kind: device, device: { model: \"iPad Pro (11-inch, 2nd generation)\", os: 17, cameras: [ { name: depth, position: lidarDepth } ] } } ] }\nsteps: [ { kill_coordinator: } ]",
             "topology.nodes[0] (line 2): device 'a' would be refused at registration: iPad Pro (11-inch, 2nd generation) has no LiDAR scanner, so no LiDAR Depth Camera 'depth' (C14)"),
            ("name: x\ncolour: red\ntopology: { nodes: [] }\nsteps: []", "unknown top-level field 'colour'"),
            ("name: x\ntopology: { nodes: [ { id: a, kind: display } ], settings: { heartbeatMs: fast } }\nsteps: [ { kill_coordinator: } ]", "topology.settings: bad value at heartbeatMs"),
        ]
        for (yaml, message) in cases {
            do {
                _ = try Scenario(yaml: yaml, path: "bad.yaml")
                Issue.record("parsed: \(yaml)")
            } catch {
                #expect(error.message.hasPrefix("bad.yaml: "))
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
    }
}
