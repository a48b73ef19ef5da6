import CamsyncPolicy
import CamsyncWire

/// Sample domain values: one per Command case, one per Event case, a non-trivial state.
enum Samples {
    static let ipad: NodeID = "ipad-1"
    static let display: NodeID = "display-1"
    static let camera = AppID(device: "ipad-1", bundleID: "com.apple.camera")
    static let facetime = AppID(device: "ipad-1", bundleID: "com.apple.facetime")
    static let tv = AppID(device: "ipad-1", bundleID: "com.apple.tv")
    static let front = CameraID(host: "ipad-1", name: "front")
    static let displayCam = CameraID(host: "display-1", name: "center-stage")
    static let frame = Frame(x: -20, y: 40, width: 320, height: 180)
    static let stage = StageWindow(screen: "display-1", frame: Frame(x: 0, y: 0, width: 1280, height: 720))

    static let cameraSpec = AppSpec(bundleID: "com.apple.camera", deploymentTarget: 17,
                                    hasMultitaskingCameraAccessEntitlement: true, requiresFullScreen: true,
                                    backgroundModeAudioAirPlayPiP: false, audioSessionCategory: .record,
                                    isSystemCameraApp: true, memoryFootprintMB: 180)
    static let facetimeSpec = AppSpec(bundleID: "com.apple.facetime", deploymentTarget: 15,
                                      hasMultitaskingCameraAccessEntitlement: true,
                                      backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playAndRecord,
                                      memoryFootprintMB: 90)
    static let tvSpec = AppSpec(bundleID: "com.apple.tv", backgroundModeAudioAirPlayPiP: true,
                                audioSessionCategory: .playback, memoryFootprintMB: 250)

    static let config4K = SessionConfiguration(camera: front, multitaskingCameraAccessEnabled: true,
                                               outputs: [.videoData, .movieFile, .depthData], resolution: .uhd4K,
                                               proRAW: true, deepFusion: true, frameRate: 60, hardwareCost: 0.75)
    static let configPlain = SessionConfiguration(camera: displayCam, audioInput: true)

    static let deviceRegistration = NodeRegistration(
        node: ipad,
        attributes: .device(DeviceAttributes(
            model: "iPad Pro (M4)", osMajor: 18, pipSupported: true, multitaskingCameraSupported: true,
            stageManagerSupported: true, stageManagerEnabled: true, layoutDirection: .rightToLeft,
            autoPiPEnabled: false,
            cameras: [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back),
                      CameraSpec(name: "lidar", position: .lidarDepth)],
            apps: [cameraSpec, facetimeSpec, tvSpec])),
        assertions: [
            AppAssertion(bundleID: "com.apple.facetime", scene: .stageWindow(stage), session: config4K,
                         sessionWantsToRun: true,
                         pip: PiPControllerSetup(kind: .videoCall, hasContentSource: true,
                                                 canStartAutomaticallyFromInline: true, playingVideoFillsWindow: false)),
            AppAssertion(bundleID: "com.apple.tv", scene: .background),
        ])
    static let displayRegistration = NodeRegistration(
        node: display,
        attributes: .display(DisplayAttributes(name: "Studio Display", attachedTo: ipad,
                                               cameras: [CameraSpec(name: "center-stage", position: .external)])))
    static let detachedDisplayRegistration = NodeRegistration(
        node: "display-2", attributes: .display(DisplayAttributes(name: "Pro Display XDR")))

    /// One sample per `Command` case (39), plus variants.
    static let commands: [Command] = [
        .registerNode(deviceRegistration),
        .unregisterNode(ipad),
        .declareNodeDead(display),
        .attachDisplay(display: display, device: ipad),
        .detachDisplay(display: display),
        .setStageManager(device: ipad, enabled: true),
        .setAutoPiP(device: ipad, enabled: false),
        .setLayoutDirection(device: ipad, .rightToLeft),
        .installApp(device: ipad, tvSpec),
        .openFullScreen(camera, trigger: .notification),
        .split(facetime, side: .right),
        .slideOver(tv),
        .stageOpen(facetime, stage),
        .stageMove(facetime, StageWindow(screen: ipad, frame: frame)),
        .stageClose(facetime),
        .goHome(device: ipad),
        .sendToBackground(tv, cause: .notificationTapped),
        .terminate(camera),
        .reportMemory(tv, megabytes: 512),
        .configureSession(facetime, config4K),
        .startSession(facetime),
        .stopSession(facetime),
        .startRecording(camera, .assetWriter),
        .stopRecording(camera),
        .setupPiP(tv, PiPControllerSetup(kind: .playback, hasContentSource: false)),
        .setPiPContentSource(tv, present: true),
        .releasePiP(tv),
        .startPiP(tv, trigger: .programmatic),
        .stashPiP(facetime),
        .unstashPiP(facetime),
        .movePiP(tv, screen: display, frame: frame),
        .closePiP(tv),
        .restorePiP(tv),
        .completePiPRestore(tv),
        .pipRestoreDeadlinePassed(tv),
        .setPressure(.builtIn(device: ipad), .critical),
        .setAudioCategory(tv, AudioSessionConfiguration(category: .playAndRecord, mixWithOthers: true, duckOthers: true)),
        .activateAudioSession(facetime),
        .deactivateAudioSession(tv),
        // Variants of payloads.
        .setAudioCategory(camera, AudioSessionConfiguration(category: .record)),
        .registerNode(displayRegistration),
        .registerNode(detachedDisplayRegistration),
        .configureSession(camera, configPlain),
        .setPressure(.external(displayCam), .shutdown),
    ]
    static let commandCaseCount = 39

    /// One sample per `Event` case (43), plus variants.
    static let events: [Event] = [
        .nodeJoined(ipad, .device),
        .nodeRejoined(display, .display),
        .nodeLeft(display, .declaredDead),
        .displayAttached(display: display, device: ipad),
        .displayDetached(display: display, device: ipad),
        .deviceSettingsChanged(ipad),
        .appInstalled(tv),
        .sceneChanged(facetime, from: .fullScreen, to: .stageWindow(stage)),
        .roleChanged(tv, .backgroundMedia),
        .appTerminated(tv, .memoryLimit),
        .sessionConfigured(facetime, hardwareCost: 0.625, multitaskingCameraAccessSupported: true),
        .sessionStarted(facetime),
        .sessionStopped(facetime),
        .sessionWasInterrupted(facetime, .videoDeviceNotAvailableWithMultipleForegroundApps),
        .sessionInterruptionEnded(facetime),
        .sessionCameraDisconnected(camera, displayCam),
        .cameraGranted(.builtIn(device: ipad), camera, GrantToken(42)),
        .cameraReleased(.external(displayCam), camera),
        .pressureChanged(.builtIn(device: ipad), .serious),
        .throttleAdvised(.builtIn(device: ipad), camera, maxFrameRate: 15),
        .recordingStarted(camera, .movieFile),
        .recordingFinished(camera, .movieFile, multitaskedDuringRecording: true),
        .recordingQualityAlert(device: ipad, app: camera),
        .warning(facetime, .multitaskingCameraAccessNotRecommended),
        .pipControllerChanged(tv),
        .pipDidStart(tv, screen: ipad, frame: frame),
        .pipDidStop(tv),
        .pipSuspended(tv),
        .pipResumed(tv),
        .pipStashed(facetime),
        .pipUnstashed(facetime),
        .pipMoved(tv, screen: display, frame: frame),
        .pipRestoreUserInterface(tv),
        .pipRestoreFinished(tv, restored: false),
        .audioSessionConfigured(tv, AudioSessionConfiguration(category: .playback, mixWithOthers: true, duckOthers: true)),
        .audioSessionActivated(tv),
        .audioSessionDeactivated(tv),
        .audioInterruptionBegan(facetime, .default),
        .audioInterruptionEnded(facetime, shouldResume: true),
        .audioDuckingBegan(camera),
        .audioDuckingEnded(camera),
        .secondaryAudioSilenceHintBegan(camera),
        .secondaryAudioSilenceHintEnded(camera),
        // Variants.
        .audioInterruptionBegan(camera, .appWasSuspended),
        .sessionWasInterrupted(camera, .audioDeviceInUseByAnotherClient),
        .roleChanged(camera, nil),
        .sceneChanged(camera, from: .notRunning, to: .terminated),
        .sessionWasInterrupted(camera, .videoDeviceInUseByAnotherClient),
        .warning(tv, .pipContentSourceClearedWhileActive),
    ]
    static let eventCaseCount = 43

    /// Nodes, apps with sessions/PiP/recording, camera systems with holders/tokens, alert set.
    static func clusterState(reversed: Bool = false) -> ClusterState {
        var nodes: [(NodeID, NodeRecord)] = [
            (ipad, NodeRecord(id: ipad, registration: deviceRegistration, alive: true, attachedTo: nil,
                              stageManagerEnabled: true, autoPiPEnabled: false, layoutDirection: .rightToLeft,
                              registeredAt: Instant(milliseconds: 1_700_000_000_000))),
            (display, NodeRecord(id: display, registration: displayRegistration, alive: true, attachedTo: ipad,
                                 stageManagerEnabled: false, autoPiPEnabled: true, layoutDirection: .leftToRight,
                                 registeredAt: Instant(milliseconds: 1_700_000_000_500))),
            ("display-2", NodeRecord(id: "display-2", registration: detachedDisplayRegistration, alive: false,
                                     attachedTo: nil, stageManagerEnabled: false, autoPiPEnabled: true,
                                     layoutDirection: .leftToRight, registeredAt: .zero)),
        ]
        var apps: [(AppID, AppRecord)] = [
            (camera, AppRecord(id: camera, spec: cameraSpec, scene: .fullScreen, role: .primary, memoryFootprintMB: 180,
                               session: CaptureSessionRecord(
                                   configuration: configPlain, hardwareCost: 0.25, multitaskingCameraAccessSupported: true,
                                   wantsToRun: true, state: .running,
                                   recording: RecordingRecord(output: .movieFile, startedAt: Instant(milliseconds: 5_000),
                                                              multitaskedDuringRecording: true)))),
            (facetime, AppRecord(id: facetime, spec: facetimeSpec, scene: .stageWindow(stage), role: .secondary,
                                 memoryFootprintMB: 95,
                                 session: CaptureSessionRecord(
                                     configuration: config4K, hardwareCost: 0.75, multitaskingCameraAccessSupported: false,
                                     wantsToRun: true, state: .interrupted(.videoDeviceInUseByAnotherClient),
                                     preemptedAt: 7, waitingSince: 7),
                                 pip: PiPRecord(setup: PiPControllerSetup(kind: .videoCall), window: .suspended,
                                                suspendedAt: 9),
                                 audioSession: AudioSessionRecord(configuration: AudioSessionConfiguration(category: .playAndRecord),
                                                                  interruptedBy: tv, isDucked: false))),
            (tv, AppRecord(id: tv, spec: tvSpec, scene: .background, role: .backgroundMedia, memoryFootprintMB: 150,
                           pip: PiPRecord(setup: PiPControllerSetup(kind: .playback, canStartAutomaticallyFromInline: true,
                                                                    playingVideoFillsWindow: true),
                                          window: .active(screen: display, frame: frame, stashed: true),
                                          restoreDeadline: Instant(milliseconds: 12_000)),
                           audioSession: AudioSessionRecord(
                               configuration: AudioSessionConfiguration(category: .playback, mixWithOthers: true, duckOthers: true),
                               isActive: true, secondaryAudioShouldBeSilencedHint: true))),
            (AppID(device: ipad, bundleID: "com.example.idle"),
             AppRecord(id: AppID(device: ipad, bundleID: "com.example.idle"), spec: AppSpec(bundleID: "com.example.idle"),
                       memoryFootprintMB: 0)),
        ]
        var systems: [(CameraSystemID, CameraSystemRecord)] = [
            (.builtIn(device: ipad), CameraSystemRecord(id: .builtIn(device: ipad),
                                                        cameras: [front, CameraID(host: ipad, name: "back")],
                                                        pressure: .fair, holder: camera, lastToken: GrantToken(12))),
            (.external(displayCam), CameraSystemRecord(id: .external(displayCam), cameras: [displayCam],
                                                       pressure: .shutdown, holder: nil, lastToken: GrantToken(3),
                                                       available: false)),
        ]
        var alerts: [NodeID] = [ipad, "ipad-0", "ipad-9"]
        if reversed {
            nodes.reverse(); apps.reverse(); systems.reverse(); alerts.reverse()
        }
        var state = ClusterState()
        for (key, value) in nodes { state.nodes[key] = value }
        for (key, value) in apps { state.apps[key] = value }
        for (key, value) in systems { state.cameraSystems[key] = value }
        for device in alerts { state.recordingAlertShown.insert(device) }
        state.ordinal = 10
        return state
    }

    /// One envelope per `Envelope.body` case, and every Command/Event case inside them.
    static var envelopes: [Envelope] {
        var result: [Envelope] = []
        for (index, command) in commands.enumerated() {
            result.append(.request(command, sender: "ipad-1", requestID: UInt64(index + 1), term: 3))
        }
        result.append(.snapshotRequest(sender: "ipad-1", requestID: 100, term: 3))
        result.append(.nodeHeartbeat(sender: "ipad-1", time: Instant(milliseconds: 123)))
        result.append(.ack(sequence: 77, requestID: 5, term: 3))
        result.append(.rejection(Rejection(.pipNotPossible, "no content source", pipFailure: .noContentSource),
                                 requestID: 6, term: 3))
        result.append(.error(Camsync_V1_Error(code: .forbidden, message: "acting for ipad-2"), requestID: 7, term: 3))
        result.append(.snapshot(clusterState(), sequence: 1_000, term: 3, requestID: 100, settings: PolicySettings(stageWindowLimitPerScreen: 3)))
        result.append(.eventBatch(Camsync_V1_EventBatch(
            sequence: 1_001, term: 3, time: Instant(milliseconds: 99), originNode: ipad, originRequestID: 8,
            command: .startSession(facetime), events: events)))
        result.append(.eventBatch(Camsync_V1_EventBatch(
            sequence: 1_002, term: 3, time: Instant(milliseconds: 100), originNode: nil, originRequestID: 0,
            command: .declareNodeDead(display), events: [.nodeLeft(display, .declaredDead)])))
        result.append(.coordinatorHeartbeat(term: 3, lastSequence: 1_002, time: Instant(milliseconds: 101)))
        // Node control socket (control.proto) and the snapshot's liveness facts (sync.proto).
        var statusRequest = Camsync_V1_NodeStatusRequest()
        statusRequest.afterSequence = 17
        result.append(Envelope(sender: "ctl", requestID: 200, body: .nodeStatusRequest(statusRequest)))
        var status = Camsync_V1_NodeStatus()
        status.node = "ipad-1"
        status.registered = true
        status.synced = true
        status.sequence = 1_002
        status.term = 3
        status.coordinatorReachable = true
        status.replica = Camsync_V1_ClusterState(clusterState())
        var event = Camsync_V1_AppEventRecord()
        event.sequence = 1_001
        event.app = Camsync_V1_AppRef(facetime)
        event.name = "wasInterrupted"
        var detail = Camsync_V1_AppEventRecord.Detail()
        detail.key = "raw"
        detail.value = "3"
        event.details = [detail]
        status.appEvents = [event]
        var fence = Camsync_V1_FenceRecord()
        fence.decision = .refusedStale
        fence.app = Camsync_V1_AppRef(facetime)
        fence.system = Camsync_V1_CameraSystemRef(.builtIn(device: ipad))
        fence.token = 4
        fence.highest = 5
        fence.sequence = 1_000
        fence.wallTimeMs = 1_700_000_000_000
        fence.fromSnapshot = true
        status.fenceLog = [fence]
        var holder = Camsync_V1_FenceHolder()
        holder.system = Camsync_V1_CameraSystemRef(.builtIn(device: ipad))
        holder.app = Camsync_V1_AppRef(facetime)
        holder.token = 5
        status.holders = [holder]
        result.append(Envelope(sender: "ipad-1", requestID: 200, term: 3, body: .nodeStatus(status)))
        var withLiveness = Envelope.snapshot(clusterState(), sequence: 1_003, term: 3, requestID: 101, settings: PolicySettings())
        if case .snapshot(var snapshot)? = withLiveness.body {
            var liveness = Camsync_V1_NodeLiveness()
            liveness.node = "ipad-1"
            liveness.silentMs = 120
            snapshot.liveness = [liveness]
            withLiveness.body = .snapshot(snapshot)
        }
        result.append(withLiveness)
        return result
    }
}


/// The enum case name of a domain value (all Command/Event cases carry payloads).
func caseName(_ value: Any) -> String {
    Mirror(reflecting: value).children.first?.label ?? String(describing: value)
}
