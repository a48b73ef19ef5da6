public import CamsyncCoordinator
public import CamsyncPolicy
public import CamsyncWire
public import CamsyncCoordinatorCore

/// A realistic cluster to throw input at — two iPads and a display attached to the first,
/// apps in full screen, Split View, Slide Over and a stage window, a running capture session
/// on each device, a PiP window — and the valid frames of every kind the corpus starts from.
public enum HostileCorpus {
    public static let ipad1: NodeID = "ipad-1"
    public static let ipad2: NodeID = "ipad-2"
    public static let display: NodeID = "display-1"

    public static let camera = AppSpec(bundleID: "com.apple.camera", deploymentTarget: 17, requiresFullScreen: true,
                                       audioSessionCategory: .playAndRecord, isSystemCameraApp: true, memoryFootprintMB: 180)
    public static let call = AppSpec(bundleID: "com.example.call", deploymentTarget: 16,
                                     hasMultitaskingCameraAccessEntitlement: true, backgroundModeAudioAirPlayPiP: true,
                                     audioSessionCategory: .playAndRecord, memoryFootprintMB: 120)
    public static let video = AppSpec(bundleID: "com.example.video", backgroundModeAudioAirPlayPiP: true,
                                      audioSessionCategory: .playback, memoryFootprintMB: 150)
    public static let notes = AppSpec(bundleID: "com.example.notes")
    public static let legacy = AppSpec(bundleID: "com.example.legacy", deploymentTarget: 15)
    public static let fullOnly = AppSpec(bundleID: "com.example.fullonly", requiresFullScreen: true)
    public static let apps = [camera, call, video, notes, legacy, fullOnly]

    public static func app(_ device: NodeID, _ spec: AppSpec) -> AppID { AppID(device: device, bundleID: spec.bundleID) }
    public static func front(_ device: NodeID) -> CameraID { CameraID(host: device, name: "front") }
    public static let displayCamera = CameraID(host: display, name: "center-stage")

    public static func deviceRegistration(_ id: NodeID, os: Int, stageManager: Bool) -> NodeRegistration {
        NodeRegistration(node: id, attributes: .device(DeviceAttributes(
            model: "iPad Pro (12.9-inch, 6th generation)", osMajor: os, pipSupported: true, multitaskingCameraSupported: os >= 16,
            stageManagerSupported: stageManager, stageManagerEnabled: stageManager, layoutDirection: .leftToRight,
            autoPiPEnabled: true,
            cameras: [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back)],
            apps: apps)))
    }

    public static let displayRegistration = NodeRegistration(node: display, attributes: .display(DisplayAttributes(
        name: "Studio Display", attachedTo: ipad1, cameras: [CameraSpec(name: "center-stage", position: .external)])))

    /// The commands that build the base state, each with the sender that may send it.
    public static var setup: [(sender: String, command: Command)] {
        let call1 = app(ipad1, call), video1 = app(ipad1, video), notes1 = app(ipad1, notes)
        let camera2 = app(ipad2, camera), call2 = app(ipad2, call)
        return [
            ("ipad-1", .registerNode(deviceRegistration(ipad1, os: 17, stageManager: true))),
            ("ipad-2", .registerNode(deviceRegistration(ipad2, os: 16, stageManager: false))),
            // Its registration attaches it to ipad-1 (alive): attaching it again would be a no-op, refused.
            ("display-1", .registerNode(displayRegistration)),
            // ipad-1: a video in PiP on the display, a call on the front camera in a stage window,
            // notes in another stage window on the display.
            ("ipad-1", .openFullScreen(video1, trigger: .user)),
            ("ipad-1", .setupPiP(video1, PiPControllerSetup(kind: .playback, canStartAutomaticallyFromInline: true))),
            ("ipad-1", .startPiP(video1, trigger: .user)),
            ("ipad-1", .movePiP(video1, screen: display, frame: Frame(x: 40, y: 40, width: 320, height: 180))),
            ("ipad-1", .stageOpen(call1, StageWindow(screen: ipad1, frame: Frame(x: 0, y: 0, width: 800, height: 600)))),
            ("ipad-1", .configureSession(call1, SessionConfiguration(camera: front(ipad1), multitaskingCameraAccessEnabled: true,
                                                                       outputs: [.videoData, .movieFile], resolution: .hd1080))),
            ("ipad-1", .startSession(call1)),
            ("ipad-1", .startRecording(call1, .movieFile)),
            ("ipad-1", .setupPiP(call1, PiPControllerSetup(kind: .videoCall))),
            // The call's audio holds the microphone (A7).
            ("ipad-1", .activateAudioSession(call1)),
            ("ipad-1", .stageOpen(notes1, StageWindow(screen: display, frame: Frame(x: 100, y: 80, width: 640, height: 480)))),
            // ipad-2: Camera.app on the front camera, a call in Slide Over waiting for it.
            ("ipad-2", .openFullScreen(camera2, trigger: .user)),
            ("ipad-2", .configureSession(camera2, SessionConfiguration(camera: front(ipad2), resolution: .uhd4K))),
            ("ipad-2", .startSession(camera2)),
            ("ipad-2", .slideOver(call2)),
            ("ipad-2", .configureSession(call2, SessionConfiguration(camera: front(ipad2)))),
            ("ipad-2", .startSession(call2)),
            ("display-1", .setPressure(.external(displayCamera), .fair)),
        ]
    }

    /// A coordinator core holding the base state (sequence = number of setup commands).
    /// `rejected` lists the setup commands the engine refused (none, unless the engine changed).
    public static func baseCore(retryWindow: Int = 65_536) -> (core: CoordinatorCore, rejected: [String]) {
        var core = CoordinatorCore(settings: CoordinatorSettings(dataDirectory: "", retryWindow: retryWindow), term: 1)
        var rejected: [String] = []
        for (index, step) in setup.enumerated() {
            let (outcome, _) = core.handle(step.command, from: step.sender, requestID: UInt64(index + 1), isAdmin: false,
                                           at: Instant(milliseconds: 1_000 + Int64(index) * 10))
            if case .refused(let code, let message, _) = outcome { rejected.append("\(step.command): \(code) \(message)") }
        }
        return (core, rejected)
    }

    /// One valid command of every `Command` case (39), on the base state's ids.
    public static var commands: [Command] {
        let call1 = app(ipad1, call), video1 = app(ipad1, video), notes1 = app(ipad1, notes), camera1 = app(ipad1, camera)
        let call2 = app(ipad2, call), legacy1 = app(ipad1, legacy), full1 = app(ipad1, fullOnly)
        let frame = Frame(x: -20, y: 40, width: 320, height: 180)
        return [
            .registerNode(deviceRegistration(ipad1, os: 17, stageManager: true)),
            .unregisterNode(ipad2),
            .declareNodeDead(display),
            .attachDisplay(display: display, device: ipad1),
            .detachDisplay(display: display),
            .setStageManager(device: ipad1, enabled: false),
            .setAutoPiP(device: ipad1, enabled: false),
            .setLayoutDirection(device: ipad1, .rightToLeft),
            .installApp(device: ipad1, AppSpec(bundleID: "com.example.new", audioSessionCategory: .record)),
            .openFullScreen(camera1, trigger: .notification),
            .split(notes1, side: .left),
            .slideOver(legacy1),
            .stageOpen(full1, StageWindow(screen: display, frame: frame)),
            .stageMove(call1, StageWindow(screen: display, frame: frame)),
            .stageClose(notes1),
            .goHome(device: ipad1),
            .sendToBackground(call1, cause: .homeGesture),
            .terminate(call2),
            .reportMemory(video1, megabytes: 900),
            .configureSession(camera1, SessionConfiguration(camera: displayCamera, outputs: [.photo, .depthData],
                                                            resolution: .uhd4K, proRAW: true, deepFusion: true,
                                                            frameRate: 60, hardwareCost: 0.9)),
            // C11–C14: capture graphs (some refused: ARKit with multitasking access, LiDAR-less MultiCam).
            .configureSession(call1, SessionConfiguration(camera: front(ipad1), outputs: [.videoData, .videoData, .movieFile, .audioData],
                                                          resolution: .uhd4K, audioInput: true, videoDataResolutions: [.uhd4K, .hd720])),
            .configureSession(notes1, SessionConfiguration(camera: front(ipad1), multitaskingCameraAccessEnabled: true, runByARKit: true)),
            .configureSession(legacy1, SessionConfiguration(camera: CameraID(host: ipad1, name: "back"), resolution: .hd720,
                                                            additionalCameras: [front(ipad1), displayCamera])),
            .startSession(call2),
            .stopSession(call1),
            .startRecording(call1, .assetWriter),
            .stopRecording(call1),
            .setupPiP(notes1, PiPControllerSetup(kind: .playback, hasContentSource: false)),
            .setPiPContentSource(video1, present: false),
            .releasePiP(video1),
            .startPiP(call1, trigger: .programmatic),
            .stashPiP(video1),
            .unstashPiP(video1),
            .movePiP(video1, screen: ipad1, frame: frame),
            .closePiP(video1),
            .restorePiP(video1),
            .completePiPRestore(video1),
            .pipRestoreDeadlinePassed(video1),
            .setPressure(.builtIn(device: ipad2), .critical),
            .setAudioCategory(call1, AudioSessionConfiguration(category: .playAndRecord, mixWithOthers: true, duckOthers: true)),
            .activateAudioSession(video1),
            .deactivateAudioSession(call1),
        ]
    }

    /// The sender a node would use for `command` (its subject), or admin.
    public static func naturalSender(_ command: Command) -> String {
        if case .declareNodeDead = command { return Envelope.adminSender }
        return command.subjectNode?.rawValue ?? Envelope.adminSender
    }

    /// Ids that exist, and ids that do not: references are swapped among them.
    public static let nodePool: [NodeID] = [ipad1, ipad2, display, "ipad-9", "display-9", "coordinator", "admin", "ipad-1 "]
    public static let bundlePool = apps.map(\.bundleID) + ["com.ghost.app", "com.apple.camera2", "é", "a/b"]
    public static let cameraPool = ["front", "back", "center-stage", "lidar", "ghost"]

    /// Commands with impossible references: unknown apps, cameras, nodes and screens, from their own node.
    public static var impossibleReferences: [Command] {
        let ghostApp = AppID(device: ipad1, bundleID: "com.ghost.app")
        let ghostNodeApp = AppID(device: "ipad-9", bundleID: call.bundleID)
        let frame = Frame(x: 0, y: 0, width: 100, height: 100)
        return [
            .openFullScreen(ghostApp, trigger: .user),
            .startSession(ghostApp),
            .terminate(ghostNodeApp),
            .configureSession(app(ipad1, call), SessionConfiguration(camera: CameraID(host: ipad1, name: "ghost"))),
            .configureSession(app(ipad1, call), SessionConfiguration(camera: front(ipad2))),
            .configureSession(app(ipad1, call), SessionConfiguration(camera: CameraID(host: "display-9", name: "cam"))),
            .stageOpen(app(ipad1, notes), StageWindow(screen: "display-9", frame: frame)),
            .stageOpen(app(ipad1, notes), StageWindow(screen: ipad2, frame: frame)),
            .movePiP(app(ipad1, video), screen: "display-9", frame: frame),
            .movePiP(app(ipad1, video), screen: ipad1, frame: Frame(x: 0, y: 0, width: -5, height: 0)),
            .attachDisplay(display: "display-9", device: ipad1),
            .setPressure(.external(CameraID(host: display, name: "ghost")), .serious),
            .setPressure(.builtIn(device: "ipad-9"), .serious),
            .goHome(device: "ipad-9"),
            .unregisterNode("ipad-9"),
            .reportMemory(ghostApp, megabytes: Int.max),
            .installApp(device: ipad1, call),
            .activateAudioSession(ghostApp),
            .deactivateAudioSession(ghostNodeApp),
            .setAudioCategory(app(ipad1, notes), AudioSessionConfiguration(category: .record, mixWithOthers: true)),
        ]
    }

    /// Valid envelopes of every kind: every command from its own node, every command from admin,
    /// impossible references, a stranger, a node acting for another, every other body case.
    public static var envelopes: [Envelope] {
        var result: [Envelope] = []
        var id: UInt64 = 1_000
        func next() -> UInt64 { id += 1; return id }
        for command in commands {
            result.append(.request(command, sender: naturalSender(command), requestID: next(), term: 1))
            result.append(.request(command, sender: Envelope.adminSender, requestID: next(), term: 1))
        }
        for command in impossibleReferences {
            result.append(.request(command, sender: naturalSender(command), requestID: next(), term: 1))
        }
        result.append(.request(.goHome(device: "ipad-9"), sender: "ipad-9", requestID: next()))
        result.append(.request(.goHome(device: ipad1), sender: "ipad-2", requestID: next()))
        result.append(.request(.registerNode(deviceRegistration("ipad-3", os: 18, stageManager: true)),
                               sender: "ipad-3", requestID: next()))
        result.append(.snapshotRequest(sender: "ipad-1", requestID: next(), term: 1))
        result.append(.nodeHeartbeat(sender: "ipad-2", time: Instant(milliseconds: 5_000), term: 1))
        result.append(.ack(sequence: 7, requestID: next(), term: 1, sender: "ipad-1"))
        result.append(.error(Camsync_V1_Error(code: .forbidden, message: "no"), requestID: next(), term: 1, sender: "ipad-1"))
        result.append(.rejection(Rejection(.pipNotPossible, "no content", pipFailure: .noContentSource),
                                 requestID: next(), term: 1, sender: "ipad-1"))
        let (core, _) = baseCore()
        result.append(.snapshot(core.state, sequence: core.sequence, term: 1, requestID: next(), settings: PolicySettings(),
                                sender: "ipad-1"))
        result.append(.eventBatch(Camsync_V1_EventBatch(
            sequence: 9, term: 1, time: Instant(milliseconds: 9), originNode: ipad1, originRequestID: 3,
            command: .goHome(device: ipad1), events: [.deviceSettingsChanged(ipad1)]), sender: "ipad-1"))
        result.append(.coordinatorHeartbeat(term: 1, lastSequence: 9, time: Instant(milliseconds: 9), sender: "ipad-1"))
        return result
    }
}
