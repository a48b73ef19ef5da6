public import CamsyncPolicy

/// A command in the words a person types: `ipad-1 stage-move com.example.notes --screen display-1 --frame 0,0,800,600`
/// is `camsync ctl act ipad-1 stage-move …`. The inverse of `ActionVerbs.parse`: for every command the verb
/// table offers, `ActionVerbs.parse(node: words.node, words: words.words)` gives the command back.
///
/// The commands nobody types (a node's registration, the coordinator's `declare-dead` and PiP restore
/// deadline) are described in the same style; `isAction` is false for them.
public struct CommandWords: Hashable, Sendable, CustomStringConvertible {
    /// The node the action is sent through (`ctl act NODE …`).
    public var node: NodeID
    /// The words after the node: the verb and its arguments.
    public var words: [String]
    /// Whether the verb table offers it (`ctl act` takes these words).
    public var isAction: Bool

    /// `ipad-1 open com.example.videocall`; `declare-dead ipad-2` for what nobody types.
    public var description: String {
        isAction ? ([node.rawValue] + words).joined(separator: " ") : words.joined(separator: " ")
    }
}

extension Command {
    /// The command in the verb table's words (SPEC rule ids and all: `ctl act --help`).
    public var words: CommandWords {
        let node = subjectNode ?? "coordinator"
        func action(_ words: String...) -> CommandWords { CommandWords(node: node, words: words, isAction: true) }
        func actionWords(_ words: [String]) -> CommandWords { CommandWords(node: node, words: words, isAction: true) }
        func told(_ words: String...) -> CommandWords { CommandWords(node: node, words: words, isAction: false) }
        switch self {
        case .registerNode(let registration):
            return CommandWords(node: node, words: ["register", registration.node.rawValue] + registration.words, isAction: false)
        case .unregisterNode: return action("leave")
        case .declareNodeDead(let dead): return told("declare-dead", dead.rawValue)
        case .attachDisplay(_, let device): return action("attach", device.rawValue)
        case .detachDisplay: return action("detach")
        case .setStageManager(_, let enabled): return action("stage-manager", enabled.onOff)
        case .setAutoPiP(_, let enabled): return action("auto-pip", enabled.onOff)
        case .setLayoutDirection(_, let direction): return action("layout", direction == .rightToLeft ? "rtl" : "ltr")
        case .installApp(_, let spec): return actionWords(["install"] + spec.words)
        case .openFullScreen(let app, let trigger):
            return actionWords(["open", app.bundleID] + (trigger == .notification ? ["--from-notification"] : []))
        case .split(let app, let side): return action("split", app.bundleID, side.rawValue)
        case .slideOver(let app): return action("slide-over", app.bundleID)
        case .stageOpen(let app, let window):
            return action("stage-open", app.bundleID, "--screen", window.screen.rawValue, "--frame", window.frame.words)
        case .stageMove(let app, let window):
            return action("stage-move", app.bundleID, "--screen", window.screen.rawValue, "--frame", window.frame.words)
        case .stageClose(let app): return action("stage-close", app.bundleID)
        case .goHome: return action("home")
        case .sendToBackground(let app, let cause): return action("background", app.bundleID, cause.words)
        case .terminate(let app): return action("terminate", app.bundleID)
        case .reportMemory(let app, let megabytes): return action("memory", app.bundleID, "\(megabytes)")
        case .configureSession(let app, let configuration):
            return actionWords(["session", "configure", app.bundleID] + configuration.words(on: app.device))
        case .startSession(let app): return action("session", "start", app.bundleID)
        case .stopSession(let app): return action("session", "stop", app.bundleID)
        case .startRecording(let app, let output): return action("record", "start", app.bundleID, output.words)
        case .stopRecording(let app): return action("record", "stop", app.bundleID)
        case .setupPiP(let app, let setup): return actionWords(["pip", "setup", app.bundleID] + setup.words)
        case .setPiPContentSource(let app, let present): return action("pip", "content-source", app.bundleID, present.onOff)
        case .releasePiP(let app): return action("pip", "release", app.bundleID)
        case .startPiP(let app, let trigger):
            return actionWords(["pip", "start", app.bundleID] + (trigger == .programmatic ? ["--programmatic"] : []))
        case .stashPiP(let app): return action("pip", "stash", app.bundleID)
        case .unstashPiP(let app): return action("pip", "unstash", app.bundleID)
        case .movePiP(let app, let screen, let frame):
            return action("pip", "move", app.bundleID, "--screen", screen.rawValue, "--frame", frame.words)
        case .closePiP(let app): return action("pip", "close", app.bundleID)
        case .restorePiP(let app): return action("pip", "restore", app.bundleID)
        case .completePiPRestore(let app): return action("pip", "restore-complete", app.bundleID)
        case .pipRestoreDeadlinePassed(let app): return told("pip", "restore-deadline-passed", app.description)
        case .setPressure(let system, let level):
            switch system {
            case .builtIn: return action("pressure", level.description)
            case .external(let camera): return action("pressure", level.description, camera.name)
            }
        case .setAudioCategory(let app, let configuration):
            return actionWords(["audio", "category", app.bundleID, configuration.category.rawValue]
                               + (configuration.mixWithOthers ? ["--mix-with-others"] : [])
                               + (configuration.duckOthers ? ["--duck-others"] : []))
        case .activateAudioSession(let app): return action("audio", "activate", app.bundleID)
        case .deactivateAudioSession(let app): return action("audio", "deactivate", app.bundleID)
        }
    }
}

extension Frame {
    /// `X,Y,W,H`, as `--frame` takes it.
    public var words: String { "\(x),\(y),\(width),\(height)" }
}

extension Bool {
    var onOff: String { self ? "on" : "off" }
}

extension BackgroundCause {
    /// The cause as `background APP home|other-app|notification` names it.
    var words: String {
        switch self {
        case .homeGesture: "home"
        case .otherAppOpened: "other-app"
        case .notificationTapped: "notification"
        }
    }
}

extension RecordingOutput {
    /// `movie` or `asset-writer`, as `record start` takes it.
    var words: String {
        switch self {
        case .movieFile: "movie"
        case .assetWriter: "asset-writer"
        }
    }
}

extension CaptureResolution {
    /// `4k`, `1080p`, `720p` or `vga`, as `--resolution` takes it.
    public var words: String {
        switch self {
        case .uhd4K: "4k"
        case .hd1080: "1080p"
        case .hd720: "720p"
        case .vga: "vga"
        }
    }
}

extension CaptureOutput {
    /// The output as `--outputs` names it (the inverse of `CaptureOutput.named`).
    public var words: String {
        switch self {
        case .videoData: "video"
        case .photo: "photo"
        case .movieFile: "movie"
        case .assetWriter: "asset-writer"
        case .depthData: "depth"
        case .metadata: "metadata"
        case .audioData: "audio"
        }
    }
}

extension AppSpec {
    /// `install`'s words after the verb: the bundle id and every attribute that is not the default.
    var words: [String] {
        let defaults = AppSpec(bundleID: bundleID)
        var words = [bundleID]
        if deploymentTarget != defaults.deploymentTarget { words += ["--deployment-target", "\(deploymentTarget)"] }
        if hasMultitaskingCameraAccessEntitlement { words.append("--entitlement") }
        if requiresFullScreen { words.append("--requires-full-screen") }
        if backgroundModeAudioAirPlayPiP { words.append("--pip-background-mode") }
        if audioSessionCategory != defaults.audioSessionCategory { words += ["--audio", audioSessionCategory.rawValue] }
        if isSystemCameraApp { words.append("--system-camera") }
        if memoryFootprintMB != defaults.memoryFootprintMB { words += ["--memory", "\(memoryFootprintMB)"] }
        return words
    }
}

extension SessionConfiguration {
    /// `session configure APP`'s options; cameras on `device` by their name, others as NODE/NAME.
    func words(on device: NodeID) -> [String] {
        let defaults = SessionConfiguration(camera: camera)
        func name(_ camera: CameraID) -> String { camera.host == device ? camera.name : camera.description }
        var words = additionalCameras.isEmpty
            ? ["--camera", name(camera)]
            : ["--cameras", ([camera] + additionalCameras).map(name).joined(separator: ",")]
        if multitaskingCameraAccessEnabled { words.append("--multitasking") }
        if runByARKit { words.append("--arkit") }
        // With video data resolutions the session's own is always said: the parser would otherwise take the largest.
        if resolution != defaults.resolution || !videoDataResolutions.isEmpty { words += ["--resolution", resolution.words] }
        if proRAW { words.append("--prores-raw") }
        if deepFusion { words.append("--deep-fusion") }
        if frameRate != defaults.frameRate { words += ["--fps", "\(frameRate)"] }
        if outputs != defaults.outputs || !videoDataResolutions.isEmpty {
            var videoIndex = 0
            let named = outputs.map { output -> String in
                guard output == .videoData, videoIndex < videoDataResolutions.count else { return output.words }
                defer { videoIndex += 1 }
                return "video:\(videoDataResolutions[videoIndex].words)"
            }
            words += ["--outputs", named.joined(separator: ",")]
        }
        if let hardwareCost { words += ["--cost", "\(hardwareCost)"] }
        if audioInput && !outputs.contains(.audioData) { words.append("--audio-input") }
        return words
    }
}

extension PiPControllerSetup {
    /// `pip setup APP`'s words: the kind and the flags that are not the default.
    var words: [String] {
        var words = [kind == .videoCall ? "video-call" : "playback"]
        if !hasContentSource { words.append("--no-content-source") }
        if canStartAutomaticallyFromInline { words.append("--auto-from-inline") }
        if playingVideoFillsWindow { words.append("--fills-window") }
        return words
    }
}

extension NodeRegistration {
    /// What a registration declares, in short: `device "iPad Pro 11-inch" iPadOS 17, cameras front,back, 4 apps`.
    var words: [String] {
        var words: [String]
        switch attributes {
        case .device(let device):
            words = ["device", "\"\(device.model)\"", "iPadOS", "\(device.osMajor),"]
            if !device.cameras.isEmpty { words += ["cameras", device.cameras.map(\.name).joined(separator: ",") + ","] }
            words += ["\(device.apps.count)", device.apps.count == 1 ? "app" : "apps"]
        case .display(let display):
            words = ["display", "\"\(display.name)\""]
            if let device = display.attachedTo { words += ["for", device.rawValue] }
            if !display.cameras.isEmpty { words += ["with", "cameras", display.cameras.map(\.name).joined(separator: ",")] }
        }
        if !assertions.isEmpty {
            words += ["re-asserting", "\(assertions.count)", assertions.count == 1 ? "app" : "apps"]
        }
        return words
    }
}
