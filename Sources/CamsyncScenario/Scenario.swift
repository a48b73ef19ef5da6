public import CamsyncTopology
import CamsyncConfig
public import CamsyncPolicy
import CamsyncVerbs
import Foundation
import Yams

/// A scenario file (docs/SCENARIOS.md): a topology and ordered steps with expectations,
/// citing the SPEC rules and seed documents it exercises.
public struct Scenario: Sendable {
    public var name: String
    public var rules: [String]
    public var seeds: [String]
    /// The nodes as in a topology file; endpoints are filled in by the runner.
    public var nodes: [Topology.Node]
    public var settings: Topology.Settings
    public var steps: [Step]
    /// Where it was read from (for reports), if from a file.
    public var path: String?

    public init(name: String, rules: [String] = [], seeds: [String] = [], nodes: [Topology.Node],
                settings: Topology.Settings = .init(heartbeatMs: 250, liveness: 4), steps: [Step], path: String? = nil) {
        self.name = name
        self.rules = rules
        self.seeds = seeds
        self.nodes = nodes
        self.settings = settings
        self.steps = steps
        self.path = path
    }

    /// One step: an action (or nothing) followed by checks that must hold within `withinMilliseconds`.
    public struct Step: Sendable {
        /// 1-based position in the file.
        public var index: Int
        /// The YAML line the step starts on.
        public var line: Int
        public var action: Action
        public var expectations: [Expectation]
        /// How long the checks may take to become true (default 5,000 ms).
        public var withinMilliseconds: Int
        /// A free-text note (`note:`) shown in reports.
        public var note: String?

        public var title: String {
            "step \(index) (line \(line)): \(action.description)" + (note.map { " — \($0)" } ?? "")
        }
    }

    /// One user action for `act`, `concurrent` and `retry_same_request`.
    public struct Act: Sendable {
        public var node: NodeID
        public var text: String
        public var command: Command
    }

    public enum Refusal: Sendable, Equatable {
        /// Rejection code name (`requiresFullScreen`), error code (`forbidden`) or PiP failure (`programmaticStart`).
        case code(String)
        /// A substring of the refusal's message.
        case message(String)
        /// Any refusal at all (`expect_refusal: any`).
        case any
    }

    public enum Action: Sendable, CustomStringConvertible {
        /// Only checks.
        case check
        case act([Act], expectRefusal: Refusal?)
        case concurrent([Act])
        case retrySameRequest(Act, times: Int)
        case kill(NodeID)
        case pause(NodeID)
        case resume(NodeID)
        case restart(NodeID)
        case killCoordinator
        case restartCoordinator
        case waitFor(WaitFor)
        case sleep(milliseconds: Int)

        public var description: String {
            switch self {
            case .check: "check"
            case .act(let acts, let refusal):
                acts.map(\.command.words.description).joined(separator: "; ")
                    + (refusal.map { " (expect refusal \($0))" } ?? "")
            case .concurrent(let acts): "concurrently " + acts.map(\.command.words.description).joined(separator: " ‖ ")
            case .retrySameRequest(let act, let times): "\(act.command.words), sent \(times)× with one request id"
            case .kill(let node): "kill -9 \(node)"
            case .pause(let node): "pause (SIGSTOP) \(node)"
            case .resume(let node): "resume (SIGCONT) \(node)"
            case .restart(let node): "restart \(node)"
            case .killCoordinator: "kill -9 the coordinator"
            case .restartCoordinator: "restart the coordinator"
            case .waitFor(let wait): "wait for \(wait.node): \(wait.app ?? "*") \(wait.event.text)"
            case .sleep(let ms): "sleep \(ms) ms"
            }
        }

        /// Whether the step needs processes the runner started.
        public var needsLocalCluster: Bool {
            switch self {
            case .kill, .pause, .resume, .restart, .killCoordinator, .restartCoordinator: true
            default: false
            }
        }
    }

    public struct WaitFor: Sendable {
        public var node: NodeID
        /// Bundle id; nil = any app on the node.
        public var app: String?
        public var event: EventPattern
        public var withinMilliseconds: Int
    }

    /// An app-facing event as written in a scenario: `name` or `name(X)` where X matches any detail
    /// value (raw reason `3`, reason name, `restored` true/false, warning kind, role, …).
    public struct EventPattern: Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var detail: String?
        public var text: String { detail.map { "\(name)(\($0))" } ?? name }
        public var description: String { text }

        public init(name: String, detail: String? = nil) {
            self.name = name
            self.detail = detail
        }

        public init?(parsing text: String) {
            let t = text.trimmingCharacters(in: .whitespaces)
            if let open = t.firstIndex(of: "("), t.hasSuffix(")") {
                name = String(t[..<open])
                detail = String(t[t.index(after: open)..<t.index(before: t.endIndex)])
                if detail!.isEmpty { return nil }
            } else {
                name = t
                detail = nil
            }
            if name.isEmpty || name.contains(" ") { return nil }
        }

        public func matches(name: String, details: [(String, String)]) -> Bool {
            guard self.name == name else { return false }
            guard let detail else { return true }
            return details.contains { $0.1 == detail || "\($0.0)=\($0.1)" == detail }
        }
    }

    public enum ScenePattern: Sendable, Equatable, CustomStringConvertible {
        case exactly(Scene)
        /// A stage window, optionally on one screen.
        case stage(NodeID?)

        public func matches(_ scene: Scene) -> Bool {
            switch self {
            case .exactly(let expected): return scene == expected
            case .stage(let screen):
                guard case .stageWindow(let window) = scene else { return false }
                return screen == nil || window.screen == screen
            }
        }

        public var description: String {
            switch self {
            case .exactly(let scene): Scenario.describe(scene)
            case .stage(let screen): screen.map { "stage(\($0))" } ?? "stage"
            }
        }
    }

    public enum PiPPattern: String, Sendable, Equatable {
        case active, stashed, suspended, inactive
    }

    /// One check after a step.
    public enum Expectation: Sendable, CustomStringConvertible {
        case session(AppID, SessionState)
        case scene(AppID, ScenePattern)
        /// nil = not running (no role).
        case role(AppID, Role?)
        case pip(AppID, PiPPattern, screen: NodeID?, frame: Frame?)
        /// The app's audio session (A1–A8).
        case audio(AppID, AudioPattern)
        case camera(CameraSystemID, holder: AppID??, token: UInt64?, pressure: SystemPressureLevel?)
        /// The hosting node's fence (C8): who may capture, under which token.
        case fence(CameraSystemID, holder: AppID?, token: UInt64?)
        /// These app-facing events appear in this order (not necessarily adjacent) on `node` since
        /// the step began; `absent` ones do not appear at all.
        case events(NodeID, app: String?, inOrder: [EventPattern], absent: [EventPattern])
        case alive(NodeID, Bool)
        case attached(display: NodeID, to: NodeID?)
        case alertShown(NodeID, Bool)
        case multitasking(NodeID, Bool)
        case replicasAgree

        public var description: String {
            switch self {
            case .session(let app, let state): "session of \(app) is \(Scenario.describe(state))"
            case .scene(let app, let scene): "scene of \(app) is \(scene)"
            case .role(let app, let role): "role of \(app) is \(role?.rawValue ?? "none")"
            case .pip(let app, let pip, let screen, let frame):
                "PiP of \(app) is \(pip.rawValue)" + (screen.map { " on \($0)" } ?? "") + (frame.map { " at \(Scenario.describe($0))" } ?? "")
            case .audio(let app, let pattern): "audio session of \(app) is \(pattern)"
            case .camera(let system, let holder, let token, let pressure):
                "camera \(system)" + [holder.map { " holder \($0?.description ?? "none")" }, token.map { " last token \($0)" },
                                      pressure.map { " pressure \(Scenario.describe($0))" }].compactMap { $0 }.joined(separator: ",")
            case .fence(let system, let holder, let token):
                "fence of \(system) on \(system.host) lets \(holder?.description ?? "nobody") capture" + (token.map { " under token \($0)" } ?? "")
            case .events(let node, let app, let inOrder, let absent):
                "app events on \(node)\(app.map { " for \($0)" } ?? "") since the step began"
                    + (inOrder.isEmpty ? "" : " include, in order, [\(inOrder.map(\.text).joined(separator: ", "))]")
                    + (absent.isEmpty ? "" : (inOrder.isEmpty ? "" : " and") + " have no [\(absent.map(\.text).joined(separator: ", "))]")
            case .alive(let node, let alive): "\(node) is \(alive ? "alive" : "dead")"
            case .attached(let display, let device): "\(display) is attached to \(device?.rawValue ?? "no device")"
            case .alertShown(let device, let shown): "the recording quality alert has \(shown ? "" : "not ")been shown on \(device)"
            case .multitasking(let device, let yes): "\(device) is \(yes ? "" : "not ")multitasking"
            case .replicasAgree: "every running node's replica equals the coordinator's state"
            }
        }
    }

    // MARK: Text forms

    public static func describe(_ state: SessionState) -> String {
        switch state {
        case .running: "running"
        case .stopped: "stopped"
        case .interrupted(let reason): "interrupted(\(reason.rawValue) \(reason))"
        }
    }

    public static func describe(_ scene: Scene) -> String {
        switch scene {
        case .notRunning: "notRunning"
        case .fullScreen: "fullScreen"
        case .splitPrimary: "splitPrimary"
        case .splitSecondary: "splitSecondary"
        case .slideOver: "slideOver"
        case .background: "background"
        case .terminated: "terminated"
        case .stageWindow(let window): "stage(\(window.screen)) at \(describe(window.frame))"
        }
    }

    public static func describe(_ frame: Frame) -> String { "\(frame.x),\(frame.y),\(frame.width),\(frame.height)" }

    public static func describe(_ level: SystemPressureLevel) -> String {
        switch level {
        case .nominal: "nominal"
        case .fair: "fair"
        case .serious: "serious"
        case .critical: "critical"
        case .shutdown: "shutdown"
        }
    }
}
