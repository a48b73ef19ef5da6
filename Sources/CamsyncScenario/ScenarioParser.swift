import CamsyncTopology
import CamsyncConfig
import CamsyncPolicy
import CamsyncVerbs
import Foundation
import Yams

/// A scenario file that cannot be used: the sentence names the file, the step and the field.
public struct ScenarioParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Scenario {
    /// Parses a scenario from YAML text (docs/SCENARIOS.md).
    public init(yaml: String, path: String? = nil) throws(ScenarioParseError) {
        let prefix = path.map { "\($0): " } ?? ""
        do {
            self = try ScenarioParser(path: path).parse(yaml)
        } catch let error as ScenarioParseError {
            throw ScenarioParseError(prefix + error.message)
        } catch {
            throw ScenarioParseError(prefix + "not valid YAML: \(error)")
        }
    }

    /// Reads and parses a scenario file.
    public init(path: String) throws(ScenarioParseError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ScenarioParseError("cannot read scenario \(path): \(error.localizedDescription)")
        }
        try self.init(yaml: text, path: path)
    }
}

/// Reads the YAML node tree so that every error can name the step, the field and the line.
struct ScenarioParser {
    var path: String?

    func parse(_ yaml: String) throws -> Scenario {
        guard let root = try Yams.compose(yaml: yaml) else { throw ScenarioParseError("the file is empty") }
        guard let top = root.mapping else { throw ScenarioParseError("the top level must be a mapping with name, topology and steps") }
        let known: Set = ["name", "rules", "seeds", "topology", "steps", "description"]
        for key in top.keys.compactMap(\.string) where !known.contains(key) {
            throw ScenarioParseError("unknown top-level field '\(key)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        guard let name = top["name"]?.string, !name.isEmpty else { throw ScenarioParseError("missing field 'name'") }
        let rules = try stringList(top["rules"], field: "rules")
        let seeds = try stringList(top["seeds"], field: "seeds")
        for rule in rules where rule.range(of: #"^[LCSRPKA][0-9]+(\.[0-9]+)?$"#, options: .regularExpression) == nil {
            throw ScenarioParseError("'rules' lists '\(rule)', which is not a SPEC rule id such as C4 or P3")
        }
        guard let topology = top["topology"]?.mapping else {
            throw ScenarioParseError("missing field 'topology' (a mapping with 'nodes' and optional 'settings')")
        }
        for key in topology.keys.compactMap(\.string) where !["nodes", "settings"].contains(key) {
            throw ScenarioParseError("unknown field 'topology.\(key)' (known: nodes, settings)")
        }
        guard let nodeList = topology["nodes"]?.sequence, !nodeList.isEmpty else {
            throw ScenarioParseError("'topology.nodes' must list at least one node")
        }
        var nodes: [Topology.Node] = []
        for (i, node) in nodeList.enumerated() {
            let parsed: Topology.Node
            do {
                parsed = try YAMLDecoder().decode(Topology.Node.self, from: node)
                _ = try NodeConfig(file: parsed.config)
            } catch {
                throw ScenarioParseError("topology.nodes[\(i)] (line \(line(node))): \(Self.describe(error))")
            }
            guard !nodes.contains(where: { $0.id == parsed.id }) else {
                throw ScenarioParseError("topology.nodes[\(i)]: node id '\(parsed.id)' appears twice")
            }
            nodes.append(parsed)
        }
        var settings = Topology.Settings(heartbeatMs: 250, liveness: 4)
        if let node = topology["settings"] {
            do {
                let given = try YAMLDecoder().decode(Topology.Settings.self, from: node)
                settings = Topology.Settings(
                    heartbeatMs: given.heartbeatMs ?? 250, liveness: given.liveness ?? 4, stageWindowLimit: given.stageWindowLimit,
                    backgroundMediaLimitMb: given.backgroundMediaLimitMb, pipRestoreDeadlineMs: given.pipRestoreDeadlineMs,
                    snapshotEvery: given.snapshotEvery)
            } catch {
                throw ScenarioParseError("topology.settings: \(Self.describe(error))")
            }
        }
        let nodeIDs = Set(nodes.map(\.id))
        guard let stepList = top["steps"]?.sequence, !stepList.isEmpty else {
            throw ScenarioParseError("'steps' must list at least one step")
        }
        var steps: [Scenario.Step] = []
        for (i, node) in stepList.enumerated() {
            steps.append(try StepParser(index: i + 1, node: node, nodes: nodeIDs).parse())
        }
        return Scenario(name: name, rules: rules, seeds: seeds, nodes: nodes, settings: settings, steps: steps, path: path)
    }

    func stringList(_ node: Node?, field: String) throws -> [String] {
        guard let node else { return [] }
        if let scalar = node.scalar { return [scalar.string] }
        guard let sequence = node.sequence else { throw ScenarioParseError("'\(field)' must be a list such as [C4, C5]") }
        return try sequence.map { item in
            guard let s = item.scalar?.string else { throw ScenarioParseError("'\(field)' must list plain words") }
            return s
        }
    }

    static func describe(_ error: any Error) -> String { describeDecodingError(error) }
}

func line(_ node: Node) -> Int { node.mark?.line ?? 0 }

/// Parses one step; errors read "step N (line L): field: what is wrong".
struct StepParser {
    let index: Int
    let node: Node
    let nodes: Set<String>

    static let actionKeys = ["act", "concurrent", "retry_same_request", "kill", "pause", "resume", "restart",
                             "kill_coordinator", "restart_coordinator", "wait_for", "sleep_ms"]

    func fail(_ field: String, _ message: String) -> ScenarioParseError {
        ScenarioParseError("step \(index) (line \(line(node))): \(field): \(message)")
    }

    func parse() throws -> Scenario.Step {
        guard let mapping = node.mapping else {
            throw ScenarioParseError("step \(index) (line \(line(node))): a step must be a mapping such as `act: { node: ipad-1, do: \"open APP\" }`")
        }
        let keys = mapping.keys.compactMap(\.string)
        let allowed = Set(Self.actionKeys + ["expect", "expect_refusal", "within_ms", "note"])
        for key in keys where !allowed.contains(key) {
            throw fail(key, "unknown field (a step has one of \(Self.actionKeys.joined(separator: ", ")) or only `expect:`; plus expect, expect_refusal, within_ms, note)")
        }
        let actions = keys.filter { Self.actionKeys.contains($0) }
        guard actions.count <= 1 else { throw fail(actions.joined(separator: "/"), "a step does one thing; split these into separate steps") }
        guard !actions.isEmpty || mapping["expect"] != nil else {
            throw fail("step", "nothing to do: give an action (\(Self.actionKeys.joined(separator: ", "))) or `expect:`")
        }
        var refusal: Scenario.Refusal?
        if let r = mapping["expect_refusal"] {
            guard actions.first == "act" else { throw fail("expect_refusal", "only an `act` step can expect a refusal") }
            refusal = try parseRefusal(r)
        }
        let action: Scenario.Action
        switch actions.first {
        case nil: action = .check
        case "act":
            let acts = try parseActs(mapping["act"]!, field: "act")
            if refusal != nil && acts.count != 1 { throw fail("expect_refusal", "needs exactly one action in `do`") }
            action = .act(acts, expectRefusal: refusal)
        case "concurrent":
            guard let list = mapping["concurrent"]!.sequence, list.count >= 2 else {
                throw fail("concurrent", "must list two or more `{ node: …, do: … }` actions to send at the same instant")
            }
            action = .concurrent(try list.enumerated().flatMap { i, item in try parseActs(item, field: "concurrent[\(i)]") })
        case "retry_same_request":
            let value = mapping["retry_same_request"]!
            let acts = try parseActs(value, field: "retry_same_request")
            guard acts.count == 1 else { throw fail("retry_same_request", "needs exactly one action in `do`") }
            let times = value.mapping?["times"].map { $0.int } ?? 2
            guard let times, times >= 2 else { throw fail("retry_same_request.times", "must be a whole number ≥ 2") }
            action = .retrySameRequest(acts[0], times: times)
        case "kill": action = .kill(try nodeName(mapping["kill"]!, field: "kill"))
        case "pause": action = .pause(try nodeName(mapping["pause"]!, field: "pause"))
        case "resume": action = .resume(try nodeName(mapping["resume"]!, field: "resume"))
        case "restart": action = .restart(try nodeName(mapping["restart"]!, field: "restart"))
        case "kill_coordinator": action = .killCoordinator
        case "restart_coordinator": action = .restartCoordinator
        case "sleep_ms":
            guard let ms = mapping["sleep_ms"]!.int, ms >= 0, ms <= 60_000 else { throw fail("sleep_ms", "must be 0…60000 milliseconds") }
            action = .sleep(milliseconds: ms)
        case "wait_for": action = .waitFor(try parseWaitFor(mapping["wait_for"]!))
        default: throw fail(actions.first ?? "step", "is not a step kind this runner knows")
        }
        var within = 5_000
        if let w = mapping["within_ms"] {
            guard let ms = w.int, ms > 0, ms <= 120_000 else { throw fail("within_ms", "must be 1…120000 milliseconds") }
            within = ms
        }
        var expectations: [Scenario.Expectation] = []
        if let expect = mapping["expect"] {
            guard let list = expect.sequence else { throw fail("expect", "must be a list of checks, e.g. `- { app: ipad-1/APP, session: running }`") }
            for (i, item) in list.enumerated() {
                expectations += try parseExpectation(item, field: "expect[\(i)]")
            }
        }
        return Scenario.Step(index: index, line: line(node), action: action, expectations: expectations,
                             withinMilliseconds: within, note: mapping["note"]?.string)
    }

    func nodeName(_ value: Node, field: String) throws -> NodeID {
        guard let name = value.scalar?.string, !name.isEmpty else { throw fail(field, "needs a node id") }
        guard nodes.contains(name) else { throw fail(field, "no node '\(name)' in the topology (nodes: \(nodes.sorted().joined(separator: ", ")))") }
        return NodeID(name)
    }

    func parseActs(_ value: Node, field: String) throws -> [Scenario.Act] {
        guard let m = value.mapping else { throw fail(field, "must be a mapping `{ node: NODE, do: \"ACTION\" }`") }
        for key in m.keys.compactMap(\.string) where !["node", "do", "times"].contains(key) {
            throw fail("\(field).\(key)", "unknown field (known: node, do)")
        }
        guard let nodeValue = m["node"] else { throw fail("\(field).node", "missing: which node acts") }
        let node = try nodeName(nodeValue, field: "\(field).node")
        guard let doValue = m["do"] else { throw fail("\(field).do", "missing: the action, e.g. \"open com.example.videocall\"") }
        let texts: [String]
        if let s = doValue.scalar?.string { texts = [s] } else if let list = doValue.sequence {
            texts = try list.map { item in
                guard let s = item.scalar?.string else { throw fail("\(field).do", "must be an action or a list of actions") }
                return s
            }
        } else { throw fail("\(field).do", "must be an action or a list of actions") }
        return try texts.map { text in
            do {
                return Scenario.Act(node: node, text: text, command: try ActionVerbs.parse(node: node, line: text))
            } catch let error as ActionParseError {
                throw fail("\(field).do", "'\(text)': \(error.message)")
            }
        }
    }

    func parseRefusal(_ value: Node) throws -> Scenario.Refusal {
        if let s = value.scalar?.string { return s == "any" ? .any : .code(s) }
        guard let m = value.mapping else { throw fail("expect_refusal", "must be `any`, `{ code: NAME }` or `{ message: TEXT }`") }
        if let code = m["code"]?.string { return code == "any" ? .any : .code(code) }
        if let message = m["message"]?.string { return .message(message) }
        throw fail("expect_refusal", "must be `any`, `{ code: NAME }` (e.g. requiresFullScreen) or `{ message: TEXT }`")
    }

    func parseWaitFor(_ value: Node) throws -> Scenario.WaitFor {
        guard let m = value.mapping else { throw fail("wait_for", "must be `{ node: N, app: BUNDLE, event: NAME, reason: R, within_ms: MS }`") }
        for key in m.keys.compactMap(\.string) where !["node", "app", "event", "reason", "within_ms"].contains(key) {
            throw fail("wait_for.\(key)", "unknown field (known: node, app, event, reason, within_ms)")
        }
        guard let nodeValue = m["node"] else { throw fail("wait_for.node", "missing: whose app events to watch") }
        let node = try nodeName(nodeValue, field: "wait_for.node")
        guard let eventText = m["event"]?.string, var pattern = Scenario.EventPattern(parsing: eventText) else {
            throw fail("wait_for.event", "missing or not an event name such as wasInterrupted")
        }
        if let reason = m["reason"]?.string { pattern.detail = reason }
        var app = m["app"]?.string
        if let a = app, let slash = a.firstIndex(of: "/") { app = String(a[a.index(after: slash)...]) }
        var within = 5_000
        if let w = m["within_ms"] {
            guard let ms = w.int, ms > 0, ms <= 120_000 else { throw fail("wait_for.within_ms", "must be 1…120000 milliseconds") }
            within = ms
        }
        return Scenario.WaitFor(node: node, app: app, event: pattern, withinMilliseconds: within)
    }

    // MARK: Expectations

    func appID(_ value: Node?, field: String) throws -> AppID {
        guard let text = value?.string, let slash = text.firstIndex(of: "/") else {
            throw fail(field, "must be NODE/BUNDLE, e.g. ipad-1/com.example.videocall")
        }
        let node = String(text[..<slash]), bundle = String(text[text.index(after: slash)...])
        guard nodes.contains(node), !bundle.isEmpty else { throw fail(field, "'\(text)': no node '\(node)' in the topology") }
        return AppID(device: NodeID(node), bundleID: bundle)
    }

    func optionalApp(_ value: Node?, field: String) throws -> AppID?? {
        guard let value else { return nil }
        if let s = value.string, ["none", "nobody", "null", "~", ""].contains(s) { return .some(nil) }
        return .some(try appID(value, field: field))
    }

    func cameraSystem(_ value: Node?, field: String) throws -> CameraSystemID {
        guard let text = value?.string, let slash = text.firstIndex(of: "/") else {
            throw fail(field, "must be NODE/builtin or NODE/CAMERA, e.g. ipad-1/builtin or display-1/center-stage")
        }
        let host = String(text[..<slash]), name = String(text[text.index(after: slash)...])
        guard nodes.contains(host) else { throw fail(field, "'\(text)': no node '\(host)' in the topology") }
        return name == "builtin" ? .builtIn(device: NodeID(host)) : .external(CameraID(host: NodeID(host), name: name))
    }

    func bool(_ value: Node, field: String) throws -> Bool {
        guard let b = value.bool else { throw fail(field, "must be true or false") }
        return b
    }

    func parseExpectation(_ value: Node, field: String) throws -> [Scenario.Expectation] {
        guard let m = value.mapping else { throw fail(field, "must be a mapping such as `{ app: ipad-1/APP, session: running }`") }
        let keys = Set(m.keys.compactMap(\.string))
        func only(_ allowed: Set<String>, _ kind: String) throws {
            for key in keys.subtracting(allowed).sorted() {
                throw fail("\(field).\(key)", "not a field of a `\(kind)` check (known: \(allowed.sorted().joined(separator: ", ")))")
            }
        }
        if keys.contains("node") {
            try only(["node", "alive", "events", "no_events", "app", "multitasking"], "node")
            let node = try nodeName(m["node"]!, field: "\(field).node")
            var out: [Scenario.Expectation] = []
            if let a = m["alive"] { out.append(.alive(node, try bool(a, field: "\(field).alive"))) }
            if let a = m["multitasking"] { out.append(.multitasking(node, try bool(a, field: "\(field).multitasking"))) }
            if m["events"] != nil || m["no_events"] != nil {
                let app = m["app"]?.string.map { $0.contains("/") ? String($0[$0.index(after: $0.firstIndex(of: "/")!)...]) : $0 }
                out.append(.events(node, app: app, inOrder: try patterns(m["events"], field: "\(field).events"),
                                   absent: try patterns(m["no_events"], field: "\(field).no_events")))
            }
            guard !out.isEmpty else { throw fail(field, "a node check needs alive, multitasking, events or no_events") }
            return out
        }
        if keys.contains("app") {
            try only(["app", "session", "scene", "role", "pip", "pip_screen", "pip_frame", "audio", "category", "ducked", "hint"], "app")
            let app = try appID(m["app"], field: "\(field).app")
            var out: [Scenario.Expectation] = []
            if let s = m["session"]?.string { out.append(.session(app, try sessionState(s, field: "\(field).session"))) }
            if let s = m["scene"]?.string { out.append(.scene(app, try scenePattern(s, field: "\(field).scene"))) }
            if let r = m["role"]?.string {
                if r == "none" { out.append(.role(app, nil)) } else {
                    guard let role = Role(rawValue: r) else {
                        throw fail("\(field).role", "'\(r)' is not a role: primary, secondary, backgroundMedia, background or none")
                    }
                    out.append(.role(app, role))
                }
            }
            if let p = m["pip"]?.string {
                guard let pip = Scenario.PiPPattern(rawValue: p) else {
                    throw fail("\(field).pip", "'\(p)' is not a PiP state: active, stashed, suspended or inactive")
                }
                var frame: Frame?
                if let f = m["pip_frame"]?.string {
                    guard let parsed = ActionVerbs.parseFrame(f) else { throw fail("\(field).pip_frame", "must be X,Y,W,H") }
                    frame = parsed
                }
                out.append(.pip(app, pip, screen: m["pip_screen"]?.string.map { NodeID($0) }, frame: frame))
            } else if keys.contains("pip_screen") || keys.contains("pip_frame") {
                throw fail("\(field).pip", "pip_screen / pip_frame need `pip: active` or `pip: stashed`")
            }
            if let audio = try audioPattern(m, keys: keys, field: field) { out.append(.audio(app, audio)) }
            guard !out.isEmpty else { throw fail(field, "an app check needs session, scene, role, pip or audio") }
            return out
        }
        if keys.contains("camera") {
            try only(["camera", "holder", "token", "pressure"], "camera")
            let system = try cameraSystem(m["camera"], field: "\(field).camera")
            let holder = try optionalApp(m["holder"], field: "\(field).holder")
            var token: UInt64?
            if let t = m["token"] {
                guard let v = t.int, v >= 0 else { throw fail("\(field).token", "must be a whole number") }
                token = UInt64(v)
            }
            var pressure: SystemPressureLevel?
            if let p = m["pressure"]?.string {
                guard let level = SystemPressureLevel.named(p) else { throw fail("\(field).pressure", "'\(p)' is not nominal, fair, serious, critical or shutdown") }
                pressure = level
            }
            guard holder != nil || token != nil || pressure != nil else { throw fail(field, "a camera check needs holder, token or pressure") }
            return [.camera(system, holder: holder, token: token, pressure: pressure)]
        }
        if keys.contains("fence") {
            try only(["fence", "holder", "token"], "fence")
            let system = try cameraSystem(m["fence"], field: "\(field).fence")
            guard let holder = try optionalApp(m["holder"], field: "\(field).holder") else { throw fail("\(field).holder", "missing (an app or none)") }
            var token: UInt64?
            if let t = m["token"] {
                guard let v = t.int, v >= 0 else { throw fail("\(field).token", "must be a whole number") }
                token = UInt64(v)
            }
            return [.fence(system, holder: holder, token: token)]
        }
        if keys.contains("display") {
            try only(["display", "attached_to"], "display")
            let display = try nodeName(m["display"]!, field: "\(field).display")
            guard let to = m["attached_to"]?.string else { throw fail("\(field).attached_to", "missing (a device or none)") }
            return [.attached(display: display, to: to == "none" ? nil : try nodeName(m["attached_to"]!, field: "\(field).attached_to"))]
        }
        if keys.contains("alert_shown") {
            try only(["alert_shown", "shown"], "alert_shown")
            let device = try nodeName(m["alert_shown"]!, field: "\(field).alert_shown")
            return [.alertShown(device, try m["shown"].map { try bool($0, field: "\(field).shown") } ?? true)]
        }
        if keys.contains("replicas_agree") {
            try only(["replicas_agree"], "replicas_agree")
            guard try bool(m["replicas_agree"]!, field: "\(field).replicas_agree") else {
                throw fail("\(field).replicas_agree", "only `true` can be checked")
            }
            return [.replicasAgree]
        }
        throw fail(field, "unknown check: give one of app, camera, fence, node, display, alert_shown, replicas_agree")
    }

    func patterns(_ value: Node?, field: String) throws -> [Scenario.EventPattern] {
        guard let value else { return [] }
        guard let list = value.sequence else { throw fail(field, "must be a list such as [\"wasInterrupted(3)\", interruptionEnded]") }
        return try list.map { item in
            guard let s = item.string, let pattern = Scenario.EventPattern(parsing: s) else {
                throw fail(field, "'\(item.string ?? "?")' is not an event such as wasInterrupted(3) or interruptionEnded")
            }
            return pattern
        }
    }

    func sessionState(_ text: String, field: String) throws -> SessionState {
        switch text {
        case "running": return .running
        case "stopped": return .stopped
        default:
            if text.hasPrefix("interrupted("), text.hasSuffix(")") {
                let inner = String(text.dropFirst("interrupted(".count).dropLast())
                if let raw = Int(inner), let reason = InterruptionReason(rawValue: raw) { return .interrupted(reason) }
                if let reason = InterruptionReason.allCases.first(where: { $0.description == inner }) { return .interrupted(reason) }
            }
            throw fail(field, "'\(text)' is not a session state: running, stopped, interrupted(1…5) or interrupted(REASON NAME)")
        }
    }

    func scenePattern(_ text: String, field: String) throws -> Scenario.ScenePattern {
        switch text {
        case "fullScreen": return .exactly(.fullScreen)
        case "splitPrimary": return .exactly(.splitPrimary)
        case "splitSecondary": return .exactly(.splitSecondary)
        case "slideOver": return .exactly(.slideOver)
        case "background": return .exactly(.background)
        case "notRunning": return .exactly(.notRunning)
        case "terminated": return .exactly(.terminated)
        case "stage": return .stage(nil)
        default:
            if text.hasPrefix("stage("), text.hasSuffix(")") {
                let screen = String(text.dropFirst("stage(".count).dropLast())
                return .stage(try nodeName(Node(screen), field: field))
            }
            throw fail(field, "'\(text)' is not a scene: fullScreen, splitPrimary, splitSecondary, slideOver, stage, stage(SCREEN), background, notRunning or terminated")
        }
    }
}
