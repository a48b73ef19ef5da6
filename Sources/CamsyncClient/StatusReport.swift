public import CamsyncPolicy
public import CamsyncWire

/// `camsync ctl status` as data: one table per concern, rows in id order, ready to print or
/// to encode as JSON.
public struct StatusReport: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var term: UInt64
    public var nodes: [[String]]
    public var cameras: [[String]]
    public var sessions: [[String]]
    public var pip: [[String]]
    public var layout: [[String]]
    /// Audio sessions of running apps, per device (A1–A8).
    public var audio: [[String]] = []
    /// The coordinator's counters (commands, retries, bad frames by reason), as name/value rows.
    public var counters: [[String]] = []
    /// Every coordinator and etcd member (SPEC K6), when asked for (`ctl status`).
    public var highAvailability: HighAvailabilityReport?

    public static let nodeHeader = ["NODE", "KIND", "OS", "ALIVE", "LAST HEARD", "ATTACHED TO"]
    public static let cameraHeader = ["CAMERA SYSTEM", "HOST", "HOLDER", "TOKEN", "PRESSURE", "AVAILABLE"]
    public static let sessionHeader = ["APP", "CAMERAS", "OUTPUTS", "STATE", "REASON", "RAW", "MULTITASKING ACCESS", "RECORDING"]
    public static let pipHeader = ["APP", "KIND", "WINDOW", "SCREEN", "FRAME"]
    public static let layoutHeader = ["DEVICE", "APP", "SCENE", "ROLE"]
    public static let coordinatorHeader = ["COORDINATOR", "ENDPOINT", "ROLE", "TERM", "APPLIED", "LAG", "ANSWERED IN", "ERROR"]
    public static let etcdHeader = ["ETCD MEMBER", "ID", "LEADER", "RAFT TERM", "RAFT INDEX", "APPLIED INDEX", "DB SIZE", "VERSION", "ERRORS"]

    /// The counter rows for `counters`: bad frames as `bad frames (REASON)`.
    public static func counterRows(_ counters: Camsync_V1_CoordinatorCounters) -> [[String]] {
        [["commands accepted", "\(counters.commandsAccepted)"], ["commands refused", "\(counters.commandsRefused)"],
         ["retries answered", "\(counters.retriesAnswered)"], ["nodes declared dead", "\(counters.nodesDeclaredDead)"],
         ["replays served", "\(counters.replaysServed)"],
         ["bad frames", "\(counters.badFrames.reduce(0) { $0 + $1.count })"]]
            + counters.badFrames.map { ["bad frames (\($0.reason))", "\($0.count)"] }
    }

    /// `silence`: milliseconds since the coordinator heard from each node.
    public init(state: ClusterState, sequence: UInt64, term: UInt64, silence: [String: Int64] = [:]) {
        self.sequence = sequence
        self.term = term
        nodes = state.nodes.values.sorted { $0.id < $1.id }.map { node in
            var os = "-"
            if case .device(let device) = node.registration.attributes { os = "\(device.osMajor)" }
            let heard = silence[node.id.rawValue].map { "\($0) ms ago" } ?? "-"
            return [node.id.rawValue, node.kind.rawValue, os, node.alive ? "yes" : "no", heard, node.attachedTo?.rawValue ?? "-"]
        }
        cameras = state.cameraSystems.values.sorted { $0.id < $1.id }.map { system in
            [system.id.description, system.id.host.rawValue, system.holder?.bundleID ?? "-",
             system.lastToken.value == 0 ? "-" : "\(system.lastToken.value)", "\(system.pressure)", system.available ? "yes" : "no"]
        }
        let apps = state.apps.values.sorted { $0.id < $1.id }
        sessions = apps.compactMap { app in
            guard let session = app.session else { return nil }
            var stateName = "stopped", reason = "-", raw = "-"
            switch session.state {
            case .running: stateName = "running"
            case .stopped: stateName = session.wantsToRun ? "stopped (wants to run)" : "stopped"
            case .interrupted(let why):
                stateName = "interrupted"
                reason = why.description
                raw = "\(why.rawValue)"
            }
            return [app.id.description, Self.cameras(of: session.configuration), Self.outputs(of: session.configuration),
                    stateName, reason, raw, Self.multitaskingAccess(of: session),
                    session.recording.map { $0.output.rawValue } ?? "-"]
        }
        pip = apps.compactMap { app in
            guard let controller = app.pip else { return nil }
            switch controller.window {
            case .inactive: return [app.id.description, controller.setup.kind.rawValue, "inactive", "-", "-"]
            case .suspended: return [app.id.description, controller.setup.kind.rawValue, "suspended", "-", "-"]
            case .active(let screen, let frame, let stashed):
                return [app.id.description, controller.setup.kind.rawValue, stashed ? "active, stashed" : "active",
                        screen.rawValue, frame.description]
            }
        }
        layout = apps.filter { $0.scene.isRunning }.map { app in
            [app.id.device.rawValue, app.id.bundleID, Self.describe(app.scene), app.role?.rawValue ?? "-"]
        }
        audio = Self.audioRows(state)
    }

    public static func describe(_ scene: Scene) -> String {
        switch scene {
        case .notRunning: "not running"
        case .fullScreen: "full screen"
        case .splitPrimary: "split (primary)"
        case .splitSecondary: "split (secondary)"
        case .slideOver: "slide over"
        case .stageWindow(let window): "stage window on \(window.screen) \(window.frame)"
        case .background: "background"
        case .terminated: "terminated"
        }
    }
}
