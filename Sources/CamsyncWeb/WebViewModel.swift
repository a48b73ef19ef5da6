import CamsyncPolicy

/// What the web page draws of devices, computed from the cluster state: screens (each device and each
/// display) with its windows at their frames, PiP windows, and camera systems with their holder,
/// token, pressure and the sessions waiting for them. The model has no screen sizes, so screens are
/// drawn at nominal sizes in points: an iPad 1366×1024, a display 1920×1080 (docs/OPERATIONS.md).
struct WebView: Codable, Equatable, Sendable {
    var sequence: UInt64
    var term: UInt64
    var screens: [ScreenView]
    var cameras: [CameraView]

    static let deviceSize = (width: 1366, height: 1024)
    static let displaySize = (width: 1920, height: 1080)
    static let slideOverWidth = 320
}

struct ScreenView: Codable, Equatable, Sendable {
    var id: String
    var kind: String
    var title: String
    var alive: Bool
    /// For a display: the device it is attached to.
    var attachedTo: String?
    var stageManager: Bool
    var width: Int
    var height: Int
    /// Back to front.
    var windows: [WindowView]
    var pip: [PiPView]
    /// The device's apps whose audio session is active or interrupted (SPEC §8).
    var audio: [AudioView]
    /// A device's microphone (A7): the app holding it, nil when free (and for a display).
    var microphone: String?
}

struct WindowView: Codable, Equatable, Sendable {
    var app: String
    var device: String
    var scene: String
    var role: String?
    var frame: Frame
    var session: String?
    /// The session's cameras and outputs (C11–C14), when the app has a session.
    var graph: CaptureGraphView?
}

struct AudioView: Codable, Equatable, Sendable {
    var app: String
    var category: String
    /// `mixWithOthers`, `duckOthers` when set.
    var options: [String]
    /// `active` or `interrupted`.
    var state: String
    var interruptedBy: String?
    var ducked: Bool
    /// A5: `secondaryAudioShouldBeSilencedHint` as the app reads it.
    var silenceHint: Bool
}

struct PiPView: Codable, Equatable, Sendable {
    var app: String
    var kind: String
    /// `active`, `stashed` or `suspended` (no frame: off screen, P4).
    var state: String
    var frame: Frame?
}

struct CameraView: Codable, Equatable, Sendable {
    var id: String
    var host: String
    var cameras: [String]
    var pressure: String
    var holder: String?
    var token: UInt64
    var available: Bool
    var waiting: [WaitingSession]
}

struct WaitingSession: Codable, Equatable, Sendable {
    var app: String
    var reason: Int
    var reasonName: String
}

extension WebView {
    /// The whole cluster: O(nodes + apps), each screen built from the running apps that can show on it.
    init(_ state: ClusterState, sequence: UInt64, term: UInt64) {
        self.sequence = sequence
        self.term = term
        var running: [NodeID: [AppRecord]] = [:]
        for app in state.apps.values where app.scene.isRunning { running[app.id.device, default: []].append(app) }
        for key in Array(running.keys) { running[key]?.sort { $0.id < $1.id } }
        let apps = { (node: NodeID) in Self.apps(showingOn: node, state: state) { running[$0] ?? [] } }
        screens = state.nodes.values.sorted { $0.id < $1.id }.map { ScreenView($0, apps: apps($0.id), state: state) }
        cameras = state.cameraSystems.values.sorted { $0.id < $1.id }.map { CameraView($0, apps: apps($0.id.host)) }
    }

    /// The running apps, in id order, that can show on `node` or use its cameras: a device's own, and
    /// for a display those of the device it is attached to (L3, C10: an app shows on its device and the
    /// displays attached to it, and uses their cameras).
    static func apps(showingOn node: NodeID, state: ClusterState, running: (NodeID) -> [AppRecord]) -> [AppRecord] {
        guard let device = state.nodes[node]?.attachedTo else { return running(node) }
        return (running(node) + running(device)).sorted { $0.id < $1.id }
    }

    /// Only the screens and camera systems of `group` (a device and its displays).
    func only(_ group: Set<String>) -> WebView {
        WebView(sequence: sequence, term: term, screens: screens.filter { group.contains($0.id) },
                cameras: cameras.filter { group.contains($0.host) })
    }
}

extension ScreenView {
    init(_ node: NodeRecord, apps: [AppRecord], state: ClusterState) {
        id = node.id.rawValue
        kind = "\(node.kind)"
        alive = node.alive
        attachedTo = node.attachedTo?.rawValue
        stageManager = node.kind == .device && node.stageManagerEnabled
        switch node.registration.attributes {
        case .device(let device):
            title = "\(device.model) · iPadOS \(device.osMajor)"
            (width, height) = WebView.deviceSize
        case .display(let display):
            title = display.name
            (width, height) = WebView.displaySize
        }
        let size = (width: width, height: height)
        let screen = node.id
        let rightToLeft = node.layoutDirection == .rightToLeft
        var windows: [(layer: Int, window: WindowView)] = []
        var pip: [PiPView] = []
        for app in apps {
            let session = app.session.map { "\($0.state)" }
            func window(_ frame: Frame, layer: Int) {
                windows.append((layer, WindowView(app: app.id.bundleID, device: app.id.device.rawValue, scene: "\(app.scene)",
                                                  role: app.role.map { "\($0)" }, frame: frame, session: session,
                                                  graph: app.session.map { CaptureGraphView($0.configuration) })))
            }
            if app.id.device == screen {
                let half = size.width / 2
                switch app.scene {
                case .fullScreen: window(Frame(x: 0, y: 0, width: size.width, height: size.height), layer: 0)
                case .splitPrimary: window(Frame(x: rightToLeft ? half : 0, y: 0, width: half, height: size.height), layer: 0)
                case .splitSecondary: window(Frame(x: rightToLeft ? 0 : half, y: 0, width: half, height: size.height), layer: 0)
                case .slideOver:
                    let x = rightToLeft ? 16 : size.width - WebView.slideOverWidth - 16
                    window(Frame(x: x, y: 16, width: WebView.slideOverWidth, height: size.height - 32), layer: 2)
                default: break
                }
                if case .suspended? = app.pip?.window {
                    pip.append(PiPView(app: app.id.bundleID, kind: "\(app.pip!.setup.kind)", state: "suspended", frame: nil))
                }
            }
            if case .stageWindow(let stage) = app.scene, stage.screen == screen { window(stage.frame, layer: 1) }
            if case .active(let pipScreen, let frame, let stashed)? = app.pip?.window, pipScreen == screen {
                pip.append(PiPView(app: app.id.bundleID, kind: "\(app.pip!.setup.kind)",
                                   state: stashed ? "stashed" : "active", frame: frame))
            }
        }
        self.windows = windows.enumerated().sorted { ($0.element.layer, $0.offset) < ($1.element.layer, $1.offset) }
            .map(\.element.window)
        self.pip = pip
        audio = apps.filter { $0.id.device == screen }.compactMap(AudioView.init)
        microphone = node.kind == .device
            ? state.microphoneHolder(device: node.id, deviceApps: apps.filter { $0.id.device == screen }.map(\.id))?.bundleID : nil
    }
}

extension AudioView {
    /// Nil for a session that is neither active nor interrupted (nothing to show).
    init?(_ app: AppRecord) {
        let session = app.audioSession
        guard session.isActive || session.interruptedBy != nil else { return nil }
        self.app = app.id.bundleID
        category = "\(session.configuration.category)"
        options = [session.configuration.mixWithOthers ? "mixWithOthers" : nil,
                   session.configuration.duckOthers ? "duckOthers" : nil].compactMap { $0 }
        state = session.isActive ? "active" : "interrupted"
        interruptedBy = session.interruptedBy.map { $0.bundleID }
        ducked = session.isDucked
        silenceHint = session.secondaryAudioShouldBeSilencedHint
    }
}

extension CameraView {
    init(_ system: CameraSystemRecord, apps: [AppRecord]) {
        id = "\(system.id)"
        host = system.id.host.rawValue
        cameras = system.cameras.map(\.name)
        pressure = "\(system.pressure)"
        holder = system.holder.map { "\($0)" }
        token = system.lastToken.value
        available = system.available
        waiting = apps.compactMap { app in
            guard let session = app.session, session.wantsToRun, case .interrupted(let reason) = session.state,
                  system.cameras.contains(session.configuration.camera) else { return nil }
            return WaitingSession(app: "\(app.id)", reason: reason.rawValue, reasonName: "\(reason)")
        }
    }
}
