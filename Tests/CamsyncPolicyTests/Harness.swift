import Testing
@testable import CamsyncPolicy

/// Fixture apps, installed on every fixture device.
enum Apps {
    /// A video-call app (seed 001): PiP background mode, playAndRecord, deployment target 16.
    static let call = AppSpec(bundleID: "com.example.call", deploymentTarget: 16, backgroundModeAudioAirPlayPiP: true,
                              audioSessionCategory: .playAndRecord)
    /// Camera.app.
    static let camera = AppSpec(bundleID: "com.apple.camera", deploymentTarget: 16, isSystemCameraApp: true)
    static let notes = AppSpec(bundleID: "com.example.notes")
    /// A video player (seed 003/004).
    static let video = AppSpec(bundleID: "com.example.video", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playback)
    /// Deployment target 15, no entitlement (C3).
    static let legacy = AppSpec(bundleID: "com.example.legacy", deploymentTarget: 15)
    /// Deployment target 15 with the multitasking-camera-access entitlement (C3).
    static let entitled = AppSpec(bundleID: "com.example.entitled", deploymentTarget: 15, hasMultitaskingCameraAccessEntitlement: true)
    /// UIRequiresFullScreen (L4).
    static let fullOnly = AppSpec(bundleID: "com.example.fullonly", requiresFullScreen: true)
    static let scanner = AppSpec(bundleID: "com.example.scanner")
    /// A second video player, so two PiP windows can compete (P4).
    static let movies = AppSpec(bundleID: "com.example.movies", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playback,
                                memoryFootprintMB: 220)
    /// A music player (A2, A3, A8): playback, audio background mode.
    static let music = AppSpec(bundleID: "com.example.music", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playback)
    /// A game with a soundtrack (A3, A5): ambient, mixes with others.
    static let game = AppSpec(bundleID: "com.example.game", audioSessionCategory: .ambient)
    /// A voice recorder (A7): record, audio background mode.
    static let recorder = AppSpec(bundleID: "com.example.recorder", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .record)
    /// The nine apps of the camera and PiP rules (the engine throughput measurement uses exactly these).
    static let cameraAndPiP = [call, camera, notes, video, legacy, entitled, fullOnly, scanner, movies]
    static let all = cameraAndPiP + [music, game, recorder]
}

extension AppID {
    static func on(_ device: NodeID, _ spec: AppSpec) -> AppID { AppID(device: device, bundleID: spec.bundleID) }
}

func deviceRegistration(_ id: NodeID, os: Int = 17, model: String = "iPad Pro", pip: Bool = true, multitaskingCamera: Bool = true,
                        stageManager: Bool = false, direction: LayoutDirection = .leftToRight,
                        apps: [AppSpec] = Apps.all, assertions: [AppAssertion] = []) -> NodeRegistration {
    NodeRegistration(node: id, attributes: .device(DeviceAttributes(
        model: model, osMajor: os, pipSupported: pip, multitaskingCameraSupported: multitaskingCamera,
        stageManagerSupported: true, stageManagerEnabled: stageManager, layoutDirection: direction,
        cameras: [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back)],
        apps: apps)), assertions: assertions)
}

func displayRegistration(_ id: NodeID, attachedTo: NodeID? = nil) -> NodeRegistration {
    NodeRegistration(node: id, attributes: .display(DisplayAttributes(
        name: "Studio Display", attachedTo: attachedTo, cameras: [CameraSpec(name: "cam", position: .external)])))
}

func front(_ device: NodeID) -> CameraID { CameraID(host: device, name: "front") }
func builtIn(_ device: NodeID) -> CameraSystemID { .builtIn(device: device) }

/// Drives an engine through commands, checking invariants after each.
struct Harness {
    var engine: PolicyEngine
    var now = Instant.zero
    var log: [Event] = []

    init(settings: PolicySettings = PolicySettings()) { engine = PolicyEngine(settings: settings) }

    var state: ClusterState { engine.state }

    @discardableResult
    mutating func ok(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) -> [Event] {
        now = now.adding(milliseconds: 10)
        switch engine.apply(command, at: now) {
        case .success(let events):
            log += events
            let violations = engine.state.invariantViolations(settings: engine.settings)
            #expect(violations.isEmpty, "after \(command): \(violations)", sourceLocation: sourceLocation)
            return events
        case .failure(let rejection):
            Issue.record("\(command) rejected: \(rejection)", sourceLocation: sourceLocation)
            return []
        }
    }

    /// Expects a rejection and that state is unchanged.
    @discardableResult
    mutating func reject(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) -> Rejection? {
        let before = engine.state
        switch engine.apply(command, at: now) {
        case .success(let events):
            Issue.record("\(command) accepted with \(events)", sourceLocation: sourceLocation)
            return nil
        case .failure(let rejection):
            #expect(engine.state == before, "a rejection changed state", sourceLocation: sourceLocation)
            return rejection
        }
    }

    mutating func advance(milliseconds: Int64) { now = now.adding(milliseconds: milliseconds) }

    func session(_ app: AppID) -> SessionState? { state.sessionState(of: app) }

    /// Registers a device, opens `app` full screen, configures the front camera and starts it.
    mutating func runCamera(_ app: AppID, multitasking: Bool = false) {
        ok(.openFullScreen(app, trigger: .user))
        ok(.configureSession(app, SessionConfiguration(camera: front(app.device), multitaskingCameraAccessEnabled: multitasking)))
        ok(.startSession(app))
    }
}

func grants(_ events: [Event]) -> [(CameraSystemID, AppID, GrantToken)] {
    events.compactMap { if case .cameraGranted(let s, let a, let t) = $0 { (s, a, t) } else { nil } }
}
