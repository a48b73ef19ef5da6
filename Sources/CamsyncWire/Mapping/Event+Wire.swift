public import CamsyncPolicy

// MARK: - Event enums

extension Camsync_V1_NodeLeaveReason {
    public init(_ value: NodeLeaveReason) {
        switch value {
        case .unregistered: self = .unregistered
        case .declaredDead: self = .declaredDead
        }
    }
}

extension NodeLeaveReason {
    public init(wire: Camsync_V1_NodeLeaveReason, field: String = "reason") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .unregistered: .unregistered
            case .declaredDead: .declaredDead
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_TerminationReason {
    public init(_ value: TerminationReason) {
        switch value {
        case .user: self = .user
        case .memoryLimit: self = .memoryLimit
        case .deviceGone: self = .deviceGone
        }
    }
}

extension TerminationReason {
    public init(wire: Camsync_V1_TerminationReason, field: String = "reason") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .user: .user
            case .memoryLimit: .memoryLimit
            case .deviceGone: .deviceGone
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_WarningKind {
    public init(_ value: WarningKind) {
        switch value {
        case .multitaskingCameraAccessNotRecommended: self = .multitaskingCameraAccessNotRecommended
        case .pipControllerReleasedWhileActive: self = .pipControllerReleasedWhileActive
        case .pipContentSourceClearedWhileActive: self = .pipContentSourceClearedWhileActive
        }
    }
}

extension WarningKind {
    public init(wire: Camsync_V1_WarningKind, field: String = "kind") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .multitaskingCameraAccessNotRecommended: .multitaskingCameraAccessNotRecommended
            case .pipControllerReleasedWhileActive: .pipControllerReleasedWhileActive
            case .pipContentSourceClearedWhileActive: .pipContentSourceClearedWhileActive
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

// MARK: - Domain → wire

extension Camsync_V1_Event {
    /// The wire form of an event; every `Event` case has its own oneof case.
    public init(_ event: Event) {
        self.init()
        func ref(_ app: AppID) -> Camsync_V1_AppRef { Camsync_V1_AppRef(app) }
        func sys(_ system: CameraSystemID) -> Camsync_V1_CameraSystemRef { Camsync_V1_CameraSystemRef(system) }
        switch event {
        case .nodeJoined(let node, let nodeKind):
            kind = .nodeJoined(.with { $0.node = node.rawValue; $0.kind = .init(nodeKind) })
        case .nodeRejoined(let node, let nodeKind):
            kind = .nodeRejoined(.with { $0.node = node.rawValue; $0.kind = .init(nodeKind) })
        case .nodeLeft(let node, let reason):
            kind = .nodeLeft(.with { $0.node = node.rawValue; $0.reason = .init(reason) })
        case .displayAttached(let display, let device):
            kind = .displayAttached(.with { $0.display = display.rawValue; $0.device = device.rawValue })
        case .displayDetached(let display, let device):
            kind = .displayDetached(.with { $0.display = display.rawValue; $0.device = device.rawValue })
        case .deviceSettingsChanged(let device):
            kind = .deviceSettingsChanged(.with { $0.device = device.rawValue })
        case .appInstalled(let app):
            kind = .appInstalled(.with { $0.app = ref(app) })
        case .sceneChanged(let app, let from, let to):
            kind = .sceneChanged(.with {
                $0.app = ref(app)
                $0.fromScene = Camsync_V1_Scene(from)
                $0.toScene = Camsync_V1_Scene(to)
            })
        case .roleChanged(let app, let role):
            kind = .roleChanged(.with {
                $0.app = ref(app)
                if let role { $0.role = .init(role) }
            })
        case .appTerminated(let app, let reason):
            kind = .appTerminated(.with { $0.app = ref(app); $0.reason = .init(reason) })
        case .sessionConfigured(let app, let hardwareCost, let supported):
            kind = .sessionConfigured(.with {
                $0.app = ref(app)
                $0.hardwareCost = hardwareCost
                $0.multitaskingCameraAccessSupported = supported
            })
        case .sessionStarted(let app):
            kind = .sessionStarted(.with { $0.app = ref(app) })
        case .sessionStopped(let app):
            kind = .sessionStopped(.with { $0.app = ref(app) })
        case .sessionWasInterrupted(let app, let reason):
            kind = .sessionWasInterrupted(.with { $0.app = ref(app); $0.reason = .init(reason) })
        case .sessionInterruptionEnded(let app):
            kind = .sessionInterruptionEnded(.with { $0.app = ref(app) })
        case .sessionCameraDisconnected(let app, let camera):
            kind = .sessionCameraDisconnected(.with { $0.app = ref(app); $0.camera = Camsync_V1_CameraRef(camera) })
        case .cameraGranted(let system, let app, let token):
            kind = .cameraGranted(.with { $0.cameraSystem = sys(system); $0.app = ref(app); $0.token = token.value })
        case .cameraReleased(let system, let app):
            kind = .cameraReleased(.with { $0.cameraSystem = sys(system); $0.app = ref(app) })
        case .pressureChanged(let system, let level):
            kind = .pressureChanged(.with { $0.cameraSystem = sys(system); $0.level = .init(level) })
        case .throttleAdvised(let system, let app, let maxFrameRate):
            kind = .throttleAdvised(.with {
                $0.cameraSystem = sys(system)
                $0.app = ref(app)
                $0.maxFrameRate = Int64(maxFrameRate)
            })
        case .recordingStarted(let app, let output):
            kind = .recordingStarted(.with { $0.app = ref(app); $0.output = .init(output) })
        case .recordingFinished(let app, let output, let multitasked):
            kind = .recordingFinished(.with {
                $0.app = ref(app)
                $0.output = .init(output)
                $0.multitaskedDuringRecording = multitasked
            })
        case .recordingQualityAlert(let device, let app):
            kind = .recordingQualityAlert(.with { $0.device = device.rawValue; $0.app = ref(app) })
        case .warning(let app, let warning):
            kind = .warning(.with { $0.app = ref(app); $0.kind = .init(warning) })
        case .pipControllerChanged(let app):
            kind = .pipControllerChanged(.with { $0.app = ref(app) })
        case .pipDidStart(let app, let screen, let frame):
            kind = .pipDidStart(.with { $0.app = ref(app); $0.screen = screen.rawValue; $0.frame = Camsync_V1_Frame(frame) })
        case .pipDidStop(let app):
            kind = .pipDidStop(.with { $0.app = ref(app) })
        case .pipSuspended(let app):
            kind = .pipSuspended(.with { $0.app = ref(app) })
        case .pipResumed(let app):
            kind = .pipResumed(.with { $0.app = ref(app) })
        case .pipStashed(let app):
            kind = .pipStashed(.with { $0.app = ref(app) })
        case .pipUnstashed(let app):
            kind = .pipUnstashed(.with { $0.app = ref(app) })
        case .pipMoved(let app, let screen, let frame):
            kind = .pipMoved(.with { $0.app = ref(app); $0.screen = screen.rawValue; $0.frame = Camsync_V1_Frame(frame) })
        case .pipRestoreUserInterface(let app):
            kind = .pipRestoreUserInterface(.with { $0.app = ref(app) })
        case .pipRestoreFinished(let app, let restored):
            kind = .pipRestoreFinished(.with { $0.app = ref(app); $0.restored = restored })
        case .audioSessionConfigured(let app, let configuration):
            kind = .audioSessionConfigured(.with { $0.app = ref(app); $0.configuration = Camsync_V1_AudioSessionConfiguration(configuration) })
        case .audioSessionActivated(let app):
            kind = .audioSessionActivated(.with { $0.app = ref(app) })
        case .audioSessionDeactivated(let app):
            kind = .audioSessionDeactivated(.with { $0.app = ref(app) })
        case .audioInterruptionBegan(let app, let reason):
            kind = .audioInterruptionBegan(.with { $0.app = ref(app); $0.reason = .init(reason) })
        case .audioInterruptionEnded(let app, let shouldResume):
            kind = .audioInterruptionEnded(.with { $0.app = ref(app); $0.shouldResume = shouldResume })
        case .audioDuckingBegan(let app):
            kind = .audioDuckingBegan(.with { $0.app = ref(app) })
        case .audioDuckingEnded(let app):
            kind = .audioDuckingEnded(.with { $0.app = ref(app) })
        case .secondaryAudioSilenceHintBegan(let app):
            kind = .secondaryAudioSilenceHintBegan(.with { $0.app = ref(app) })
        case .secondaryAudioSilenceHintEnded(let app):
            kind = .secondaryAudioSilenceHintEnded(.with { $0.app = ref(app) })
        }
    }
}

// MARK: - Wire → domain

extension Event {
    /// The domain event, or an error naming the bad field (path relative to the Event,
    /// e.g. `pip_moved.frame`).
    public init(wire: Camsync_V1_Event) throws(WireMappingError) {
        guard let kind = wire.kind else { throw WireMappingError("kind", .missing) }
        switch kind {
        case .nodeJoined(let m):
            self = .nodeJoined(try nodeID(m.node, "node_joined.node"), try NodeKind(wire: m.kind, field: "node_joined.kind"))
        case .nodeRejoined(let m):
            self = .nodeRejoined(try nodeID(m.node, "node_rejoined.node"), try NodeKind(wire: m.kind, field: "node_rejoined.kind"))
        case .nodeLeft(let m):
            self = .nodeLeft(try nodeID(m.node, "node_left.node"), try NodeLeaveReason(wire: m.reason, field: "node_left.reason"))
        case .displayAttached(let m):
            self = .displayAttached(display: try nodeID(m.display, "display_attached.display"),
                                    device: try nodeID(m.device, "display_attached.device"))
        case .displayDetached(let m):
            self = .displayDetached(display: try nodeID(m.display, "display_detached.display"),
                                    device: try nodeID(m.device, "display_detached.device"))
        case .deviceSettingsChanged(let m):
            self = .deviceSettingsChanged(try nodeID(m.device, "device_settings_changed.device"))
        case .appInstalled(let m):
            self = .appInstalled(try requireAppID(m.hasApp, m.app, "app_installed.app"))
        case .sceneChanged(let m):
            self = .sceneChanged(try requireAppID(m.hasApp, m.app, "scene_changed.app"),
                                 from: try requireScene(m.hasFromScene, m.fromScene, "scene_changed.from_scene"),
                                 to: try requireScene(m.hasToScene, m.toScene, "scene_changed.to_scene"))
        case .roleChanged(let m):
            self = .roleChanged(try requireAppID(m.hasApp, m.app, "role_changed.app"),
                                m.hasRole ? try Role(wire: m.role, field: "role_changed.role") : nil)
        case .appTerminated(let m):
            self = .appTerminated(try requireAppID(m.hasApp, m.app, "app_terminated.app"),
                                  try TerminationReason(wire: m.reason, field: "app_terminated.reason"))
        case .sessionConfigured(let m):
            self = .sessionConfigured(try requireAppID(m.hasApp, m.app, "session_configured.app"),
                                      hardwareCost: m.hardwareCost,
                                      multitaskingCameraAccessSupported: m.multitaskingCameraAccessSupported)
        case .sessionStarted(let m):
            self = .sessionStarted(try requireAppID(m.hasApp, m.app, "session_started.app"))
        case .sessionStopped(let m):
            self = .sessionStopped(try requireAppID(m.hasApp, m.app, "session_stopped.app"))
        case .sessionWasInterrupted(let m):
            self = .sessionWasInterrupted(try requireAppID(m.hasApp, m.app, "session_was_interrupted.app"),
                                          try InterruptionReason(wire: m.reason, field: "session_was_interrupted.reason"))
        case .sessionInterruptionEnded(let m):
            self = .sessionInterruptionEnded(try requireAppID(m.hasApp, m.app, "session_interruption_ended.app"))
        case .sessionCameraDisconnected(let m):
            self = .sessionCameraDisconnected(try requireAppID(m.hasApp, m.app, "session_camera_disconnected.app"),
                                              try requireCameraID(m.hasCamera, m.camera, "session_camera_disconnected.camera"))
        case .cameraGranted(let m):
            self = .cameraGranted(try requireCameraSystemID(m.hasCameraSystem, m.cameraSystem, "camera_granted.camera_system"),
                                  try requireAppID(m.hasApp, m.app, "camera_granted.app"), GrantToken(m.token))
        case .cameraReleased(let m):
            self = .cameraReleased(try requireCameraSystemID(m.hasCameraSystem, m.cameraSystem, "camera_released.camera_system"),
                                   try requireAppID(m.hasApp, m.app, "camera_released.app"))
        case .pressureChanged(let m):
            self = .pressureChanged(try requireCameraSystemID(m.hasCameraSystem, m.cameraSystem, "pressure_changed.camera_system"),
                                    try SystemPressureLevel(wire: m.level, field: "pressure_changed.level"))
        case .throttleAdvised(let m):
            self = .throttleAdvised(try requireCameraSystemID(m.hasCameraSystem, m.cameraSystem, "throttle_advised.camera_system"),
                                    try requireAppID(m.hasApp, m.app, "throttle_advised.app"),
                                    maxFrameRate: Int(truncatingIfNeeded: m.maxFrameRate))
        case .recordingStarted(let m):
            self = .recordingStarted(try requireAppID(m.hasApp, m.app, "recording_started.app"),
                                     try RecordingOutput(wire: m.output, field: "recording_started.output"))
        case .recordingFinished(let m):
            self = .recordingFinished(try requireAppID(m.hasApp, m.app, "recording_finished.app"),
                                      try RecordingOutput(wire: m.output, field: "recording_finished.output"),
                                      multitaskedDuringRecording: m.multitaskedDuringRecording)
        case .recordingQualityAlert(let m):
            self = .recordingQualityAlert(device: try nodeID(m.device, "recording_quality_alert.device"),
                                          app: try requireAppID(m.hasApp, m.app, "recording_quality_alert.app"))
        case .warning(let m):
            self = .warning(try requireAppID(m.hasApp, m.app, "warning.app"), try WarningKind(wire: m.kind, field: "warning.kind"))
        case .pipControllerChanged(let m):
            self = .pipControllerChanged(try requireAppID(m.hasApp, m.app, "pip_controller_changed.app"))
        case .pipDidStart(let m):
            self = .pipDidStart(try requireAppID(m.hasApp, m.app, "pip_did_start.app"),
                                screen: try nodeID(m.screen, "pip_did_start.screen"),
                                frame: try requireFrame(m.hasFrame, m.frame, "pip_did_start.frame"))
        case .pipDidStop(let m):
            self = .pipDidStop(try requireAppID(m.hasApp, m.app, "pip_did_stop.app"))
        case .pipSuspended(let m):
            self = .pipSuspended(try requireAppID(m.hasApp, m.app, "pip_suspended.app"))
        case .pipResumed(let m):
            self = .pipResumed(try requireAppID(m.hasApp, m.app, "pip_resumed.app"))
        case .pipStashed(let m):
            self = .pipStashed(try requireAppID(m.hasApp, m.app, "pip_stashed.app"))
        case .pipUnstashed(let m):
            self = .pipUnstashed(try requireAppID(m.hasApp, m.app, "pip_unstashed.app"))
        case .pipMoved(let m):
            self = .pipMoved(try requireAppID(m.hasApp, m.app, "pip_moved.app"),
                             screen: try nodeID(m.screen, "pip_moved.screen"),
                             frame: try requireFrame(m.hasFrame, m.frame, "pip_moved.frame"))
        case .pipRestoreUserInterface(let m):
            self = .pipRestoreUserInterface(try requireAppID(m.hasApp, m.app, "pip_restore_user_interface.app"))
        case .pipRestoreFinished(let m):
            self = .pipRestoreFinished(try requireAppID(m.hasApp, m.app, "pip_restore_finished.app"), restored: m.restored)
        case .audioSessionConfigured(let m):
            self = .audioSessionConfigured(try requireAppID(m.hasApp, m.app, "audio_session_configured.app"),
                                           try requireAudioConfiguration(m.hasConfiguration, m.configuration, "audio_session_configured.configuration"))
        case .audioSessionActivated(let m):
            self = .audioSessionActivated(try requireAppID(m.hasApp, m.app, "audio_session_activated.app"))
        case .audioSessionDeactivated(let m):
            self = .audioSessionDeactivated(try requireAppID(m.hasApp, m.app, "audio_session_deactivated.app"))
        case .audioInterruptionBegan(let m):
            self = .audioInterruptionBegan(try requireAppID(m.hasApp, m.app, "audio_interruption_began.app"),
                                           try AudioInterruptionReason(wire: m.reason, field: "audio_interruption_began.reason"))
        case .audioInterruptionEnded(let m):
            self = .audioInterruptionEnded(try requireAppID(m.hasApp, m.app, "audio_interruption_ended.app"), shouldResume: m.shouldResume)
        case .audioDuckingBegan(let m):
            self = .audioDuckingBegan(try requireAppID(m.hasApp, m.app, "audio_ducking_began.app"))
        case .audioDuckingEnded(let m):
            self = .audioDuckingEnded(try requireAppID(m.hasApp, m.app, "audio_ducking_ended.app"))
        case .secondaryAudioSilenceHintBegan(let m):
            self = .secondaryAudioSilenceHintBegan(try requireAppID(m.hasApp, m.app, "secondary_audio_silence_hint_began.app"))
        case .secondaryAudioSilenceHintEnded(let m):
            self = .secondaryAudioSilenceHintEnded(try requireAppID(m.hasApp, m.app, "secondary_audio_silence_hint_ended.app"))
        }
    }
}
