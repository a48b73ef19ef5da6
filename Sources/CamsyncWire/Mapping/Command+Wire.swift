public import CamsyncPolicy

// MARK: - Domain → wire

extension Camsync_V1_Command {
    /// The wire form of a command; every `Command` case has its own oneof case.
    public init(_ command: Command) {
        self.init()
        func ref(_ app: AppID) -> Camsync_V1_AppRef { Camsync_V1_AppRef(app) }
        switch command {
        case .registerNode(let registration):
            kind = .registerNode(.with { $0.registration = Camsync_V1_NodeRegistration(registration) })
        case .unregisterNode(let node):
            kind = .unregisterNode(.with { $0.node = node.rawValue })
        case .declareNodeDead(let node):
            kind = .declareNodeDead(.with { $0.node = node.rawValue })
        case .attachDisplay(let display, let device):
            kind = .attachDisplay(.with { $0.display = display.rawValue; $0.device = device.rawValue })
        case .detachDisplay(let display):
            kind = .detachDisplay(.with { $0.display = display.rawValue })
        case .setStageManager(let device, let enabled):
            kind = .setStageManager(.with { $0.device = device.rawValue; $0.enabled = enabled })
        case .setAutoPiP(let device, let enabled):
            kind = .setAutoPip(.with { $0.device = device.rawValue; $0.enabled = enabled })
        case .setLayoutDirection(let device, let direction):
            kind = .setLayoutDirection(.with { $0.device = device.rawValue; $0.direction = .init(direction) })
        case .installApp(let device, let spec):
            kind = .installApp(.with { $0.device = device.rawValue; $0.app = Camsync_V1_AppSpec(spec) })
        case .openFullScreen(let app, let trigger):
            kind = .openFullScreen(.with { $0.app = ref(app); $0.trigger = .init(trigger) })
        case .split(let app, let side):
            kind = .split(.with { $0.app = ref(app); $0.side = .init(side) })
        case .slideOver(let app):
            kind = .slideOver(.with { $0.app = ref(app) })
        case .stageOpen(let app, let window):
            kind = .stageOpen(.with { $0.app = ref(app); $0.window = Camsync_V1_StageWindow(window) })
        case .stageMove(let app, let window):
            kind = .stageMove(.with { $0.app = ref(app); $0.window = Camsync_V1_StageWindow(window) })
        case .stageClose(let app):
            kind = .stageClose(.with { $0.app = ref(app) })
        case .goHome(let device):
            kind = .goHome(.with { $0.device = device.rawValue })
        case .sendToBackground(let app, let cause):
            kind = .sendToBackground(.with { $0.app = ref(app); $0.cause = .init(cause) })
        case .terminate(let app):
            kind = .terminate(.with { $0.app = ref(app) })
        case .reportMemory(let app, let megabytes):
            kind = .reportMemory(.with { $0.app = ref(app); $0.megabytes = Int64(megabytes) })
        case .configureSession(let app, let configuration):
            kind = .configureSession(.with {
                $0.app = ref(app)
                $0.configuration = Camsync_V1_SessionConfiguration(configuration)
            })
        case .startSession(let app):
            kind = .startSession(.with { $0.app = ref(app) })
        case .stopSession(let app):
            kind = .stopSession(.with { $0.app = ref(app) })
        case .startRecording(let app, let output):
            kind = .startRecording(.with { $0.app = ref(app); $0.output = .init(output) })
        case .stopRecording(let app):
            kind = .stopRecording(.with { $0.app = ref(app) })
        case .setupPiP(let app, let setup):
            kind = .setupPip(.with { $0.app = ref(app); $0.setup = Camsync_V1_PipControllerSetup(setup) })
        case .setPiPContentSource(let app, let present):
            kind = .setPipContentSource(.with { $0.app = ref(app); $0.present = present })
        case .releasePiP(let app):
            kind = .releasePip(.with { $0.app = ref(app) })
        case .startPiP(let app, let trigger):
            kind = .startPip(.with { $0.app = ref(app); $0.trigger = .init(trigger) })
        case .stashPiP(let app):
            kind = .stashPip(.with { $0.app = ref(app) })
        case .unstashPiP(let app):
            kind = .unstashPip(.with { $0.app = ref(app) })
        case .movePiP(let app, let screen, let frame):
            kind = .movePip(.with { $0.app = ref(app); $0.screen = screen.rawValue; $0.frame = Camsync_V1_Frame(frame) })
        case .closePiP(let app):
            kind = .closePip(.with { $0.app = ref(app) })
        case .restorePiP(let app):
            kind = .restorePip(.with { $0.app = ref(app) })
        case .completePiPRestore(let app):
            kind = .completePipRestore(.with { $0.app = ref(app) })
        case .pipRestoreDeadlinePassed(let app):
            kind = .pipRestoreDeadlinePassed(.with { $0.app = ref(app) })
        case .setPressure(let system, let level):
            kind = .setPressure(.with { $0.cameraSystem = Camsync_V1_CameraSystemRef(system); $0.level = .init(level) })
        case .setAudioCategory(let app, let configuration):
            kind = .setAudioCategory(.with { $0.app = ref(app); $0.configuration = Camsync_V1_AudioSessionConfiguration(configuration) })
        case .activateAudioSession(let app):
            kind = .activateAudioSession(.with { $0.app = ref(app) })
        case .deactivateAudioSession(let app):
            kind = .deactivateAudioSession(.with { $0.app = ref(app) })
        }
    }
}

// MARK: - Wire → domain

extension Command {
    /// The domain command, or an error naming the bad field (path relative to the Command,
    /// e.g. `move_pip.frame`): a missing oneof case, an UNSPECIFIED or unknown enum value,
    /// an empty id, a missing required message.
    public init(wire: Camsync_V1_Command) throws(WireMappingError) {
        guard let kind = wire.kind else { throw WireMappingError("kind", .unsetOneof(wire.unknownFields.data)) }
        switch kind {
        case .registerNode(let m):
            self = try within("register_node") { () throws(WireMappingError) in
                guard m.hasRegistration else { throw WireMappingError("registration", .missing) }
                return .registerNode(try within("registration") { () throws(WireMappingError) in
                    try NodeRegistration(wire: m.registration)
                })
            }
        case .unregisterNode(let m):
            self = .unregisterNode(try nodeID(m.node, "unregister_node.node"))
        case .declareNodeDead(let m):
            self = .declareNodeDead(try nodeID(m.node, "declare_node_dead.node"))
        case .attachDisplay(let m):
            self = .attachDisplay(display: try nodeID(m.display, "attach_display.display"),
                                  device: try nodeID(m.device, "attach_display.device"))
        case .detachDisplay(let m):
            self = .detachDisplay(display: try nodeID(m.display, "detach_display.display"))
        case .setStageManager(let m):
            self = .setStageManager(device: try nodeID(m.device, "set_stage_manager.device"), enabled: m.enabled)
        case .setAutoPip(let m):
            self = .setAutoPiP(device: try nodeID(m.device, "set_auto_pip.device"), enabled: m.enabled)
        case .setLayoutDirection(let m):
            self = .setLayoutDirection(device: try nodeID(m.device, "set_layout_direction.device"),
                                       try LayoutDirection(wire: m.direction, field: "set_layout_direction.direction"))
        case .installApp(let m):
            let device = try nodeID(m.device, "install_app.device")
            guard m.hasApp else { throw WireMappingError("install_app.app", .missing) }
            self = .installApp(device: device, try within("install_app.app") { () throws(WireMappingError) in try AppSpec(wire: m.app) })
        case .openFullScreen(let m):
            self = .openFullScreen(try requireAppID(m.hasApp, m.app, "open_full_screen.app"),
                                   trigger: try OpenTrigger(wire: m.trigger, field: "open_full_screen.trigger"))
        case .split(let m):
            self = .split(try requireAppID(m.hasApp, m.app, "split.app"),
                          side: try SplitSide(wire: m.side, field: "split.side"))
        case .slideOver(let m):
            self = .slideOver(try requireAppID(m.hasApp, m.app, "slide_over.app"))
        case .stageOpen(let m):
            self = .stageOpen(try requireAppID(m.hasApp, m.app, "stage_open.app"),
                              try stageWindow(m.hasWindow, m.window, "stage_open.window"))
        case .stageMove(let m):
            self = .stageMove(try requireAppID(m.hasApp, m.app, "stage_move.app"),
                              try stageWindow(m.hasWindow, m.window, "stage_move.window"))
        case .stageClose(let m):
            self = .stageClose(try requireAppID(m.hasApp, m.app, "stage_close.app"))
        case .goHome(let m):
            self = .goHome(device: try nodeID(m.device, "go_home.device"))
        case .sendToBackground(let m):
            self = .sendToBackground(try requireAppID(m.hasApp, m.app, "send_to_background.app"),
                                     cause: try BackgroundCause(wire: m.cause, field: "send_to_background.cause"))
        case .terminate(let m):
            self = .terminate(try requireAppID(m.hasApp, m.app, "terminate.app"))
        case .reportMemory(let m):
            self = .reportMemory(try requireAppID(m.hasApp, m.app, "report_memory.app"),
                                 megabytes: Int(truncatingIfNeeded: m.megabytes))
        case .configureSession(let m):
            let app = try requireAppID(m.hasApp, m.app, "configure_session.app")
            guard m.hasConfiguration else { throw WireMappingError("configure_session.configuration", .missing) }
            self = .configureSession(app, try within("configure_session.configuration") { () throws(WireMappingError) in
                try SessionConfiguration(wire: m.configuration)
            })
        case .startSession(let m):
            self = .startSession(try requireAppID(m.hasApp, m.app, "start_session.app"))
        case .stopSession(let m):
            self = .stopSession(try requireAppID(m.hasApp, m.app, "stop_session.app"))
        case .startRecording(let m):
            self = .startRecording(try requireAppID(m.hasApp, m.app, "start_recording.app"),
                                   try RecordingOutput(wire: m.output, field: "start_recording.output"))
        case .stopRecording(let m):
            self = .stopRecording(try requireAppID(m.hasApp, m.app, "stop_recording.app"))
        case .setupPip(let m):
            self = .setupPiP(try requireAppID(m.hasApp, m.app, "setup_pip.app"),
                             try requirePipSetup(m.hasSetup, m.setup, "setup_pip.setup"))
        case .setPipContentSource(let m):
            self = .setPiPContentSource(try requireAppID(m.hasApp, m.app, "set_pip_content_source.app"), present: m.present)
        case .releasePip(let m):
            self = .releasePiP(try requireAppID(m.hasApp, m.app, "release_pip.app"))
        case .startPip(let m):
            self = .startPiP(try requireAppID(m.hasApp, m.app, "start_pip.app"),
                             trigger: try PiPStartTrigger(wire: m.trigger, field: "start_pip.trigger"))
        case .stashPip(let m):
            self = .stashPiP(try requireAppID(m.hasApp, m.app, "stash_pip.app"))
        case .unstashPip(let m):
            self = .unstashPiP(try requireAppID(m.hasApp, m.app, "unstash_pip.app"))
        case .movePip(let m):
            self = .movePiP(try requireAppID(m.hasApp, m.app, "move_pip.app"),
                            screen: try nodeID(m.screen, "move_pip.screen"),
                            frame: try requireFrame(m.hasFrame, m.frame, "move_pip.frame"))
        case .closePip(let m):
            self = .closePiP(try requireAppID(m.hasApp, m.app, "close_pip.app"))
        case .restorePip(let m):
            self = .restorePiP(try requireAppID(m.hasApp, m.app, "restore_pip.app"))
        case .completePipRestore(let m):
            self = .completePiPRestore(try requireAppID(m.hasApp, m.app, "complete_pip_restore.app"))
        case .pipRestoreDeadlinePassed(let m):
            self = .pipRestoreDeadlinePassed(try requireAppID(m.hasApp, m.app, "pip_restore_deadline_passed.app"))
        case .setPressure(let m):
            self = .setPressure(try requireCameraSystemID(m.hasCameraSystem, m.cameraSystem, "set_pressure.camera_system"),
                                try SystemPressureLevel(wire: m.level, field: "set_pressure.level"))
        case .setAudioCategory(let m):
            self = .setAudioCategory(try requireAppID(m.hasApp, m.app, "set_audio_category.app"),
                                     try requireAudioConfiguration(m.hasConfiguration, m.configuration, "set_audio_category.configuration"))
        case .activateAudioSession(let m):
            self = .activateAudioSession(try requireAppID(m.hasApp, m.app, "activate_audio_session.app"))
        case .deactivateAudioSession(let m):
            self = .deactivateAudioSession(try requireAppID(m.hasApp, m.app, "deactivate_audio_session.app"))
        }
    }
}

/// A required `StageWindow` message field.
func stageWindow(_ has: Bool, _ value: Camsync_V1_StageWindow, _ field: String) throws(WireMappingError) -> StageWindow {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try StageWindow(wire: value) }
}
