public import CamsyncPolicy

/// A CLI action that cannot be turned into a `Command`, with a sentence naming the fix.
public struct ActionParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// True when the words asked for help (`help`, `help VERB`): `message` is the help text, not an error.
    public var isHelpRequest: Bool
    public init(_ message: String, isHelpRequest: Bool = false) {
        self.message = message
        self.isHelpRequest = isHelpRequest
    }
    public var description: String { message }
}

/// Readable action words → `Command`, for `camsync ctl act NODE ACTION [ARGS]` and scenario files.
///
/// `node` is the node the action is sent through: APP names a bundle id of an app on that node
/// (`AppID(device: node, bundleID: APP)`), `home`/`stage-manager`/… act on that device, `attach`/`detach`
/// on that display. Every verb is listed in `help` with the SPEC rule it exercises.
///
/// Not offered (never issued by a user or an app): `registerNode` (a node sends it itself when it
/// starts), `declareNodeDead` and `pipRestoreDeadlinePassed` (the coordinator issues them).
public enum ActionVerbs {
    /// The default frame of a stage window when `--frame` is not given (L3).
    public static let defaultStageFrame = Frame(x: 0, y: 0, width: 800, height: 600)

    /// One documented verb: its usage, what it does, the SPEC rules, and example words.
    public struct Verb: Sendable {
        public var usage: String
        public var summary: String
        public var rules: String
        public var examples: [String]
    }

    public static let verbs: [Verb] = [
        Verb(usage: "open APP [--from-notification]", summary: "open APP full screen (replaced apps go to background; with --from-notification they get the notificationTapped cause)", rules: "L1, C4, P3", examples: ["open com.example.videocall", "open com.example.notes --from-notification"]),
        Verb(usage: "split APP left|right", summary: "put APP in Split View on that side next to the full-screen app", rules: "L1, L2, L4, C2.4", examples: ["split com.example.notes right"]),
        Verb(usage: "slide-over APP", summary: "show APP in Slide Over", rules: "L1, L2, L4", examples: ["slide-over com.example.notes"]),
        Verb(usage: "stage-open APP [--screen NODE] [--frame X,Y,W,H]", summary: "open a Stage Manager window (default: this device's screen, frame 0,0,800,600)", rules: "L3, L4", examples: ["stage-open com.example.notes", "stage-open com.example.recorder --screen display-1 --frame 10,10,640,480"]),
        Verb(usage: "stage-move APP --screen NODE [--frame X,Y,W,H]", summary: "move a Stage Manager window to a screen", rules: "L3", examples: ["stage-move com.example.notes --screen display-1"]),
        Verb(usage: "stage-close APP", summary: "close APP's Stage Manager window (the app goes to background)", rules: "L3", examples: ["stage-close com.example.notes"]),
        Verb(usage: "home", summary: "the home gesture: every visible app of this device goes to background", rules: "L1, P3", examples: ["home"]),
        Verb(usage: "background APP [home|other-app|notification]", summary: "send APP to background for that cause (default home)", rules: "P3, C2.1", examples: ["background com.example.videocall", "background com.example.videocall notification"]),
        Verb(usage: "terminate APP", summary: "quit APP (its session stops, its PiP closes, its camera is released)", rules: "C6", examples: ["terminate com.apple.camera"]),
        Verb(usage: "memory APP MB", summary: "APP reports its memory footprint in megabytes", rules: "P9", examples: ["memory com.example.videocall 350"]),
        Verb(usage: "install BUNDLE [--deployment-target N] [--entitlement] [--requires-full-screen] [--pip-background-mode] [--audio CATEGORY] [--system-camera] [--memory MB]", summary: "install an app on this device (CATEGORY: playback, playAndRecord, ambient, soloAmbient, record)", rules: "C3, L4, P1", examples: ["install com.example.new", "install com.example.tv --pip-background-mode --audio playback --deployment-target 15 --entitlement --requires-full-screen --system-camera --memory 80"]),
        Verb(usage: "session configure APP --camera [NODE/]NAME | --cameras NAME,NAME,… [--multitasking] [--arkit] [--resolution 4k|1080p|720p|vga] [--prores-raw] [--deep-fusion] [--fps N] [--outputs video[:RES],movie,photo,asset-writer,depth,metadata,audio] [--cost X] [--audio-input]", summary: "configure APP's capture session (camera NAME on this node unless NODE/ is given; --cameras: a MultiCam session, the first is its camera; video:RES a video data output of its own resolution, RES 4k|1080p|720p|vga|preview, repeatable; audio: an audio data output, with the microphone; --arkit: run by ARKit; --audio-input adds the microphone)", rules: "C3, C9, C10, C11, C12, C13, C14, R2, A7", examples: ["session configure com.example.videocall --camera front", "session configure com.example.recorder --camera display-1/center-stage --multitasking --resolution 4k --prores-raw --deep-fusion --fps 60 --outputs video,movie --cost 0.5 --audio-input", "session configure com.example.recorder --camera back --outputs video:4k,video:preview,movie,audio", "session configure com.example.scanner --cameras lidar,telephoto,ultra-wide --resolution 720p", "session configure com.example.measure --camera back --arkit"]),
        Verb(usage: "session start APP", summary: "start APP's capture session", rules: "C1, C2, C4, C5, C9", examples: ["session start com.example.videocall"]),
        Verb(usage: "session stop APP", summary: "stop APP's capture session (the camera returns to the last preempted waiter)", rules: "C6", examples: ["session stop com.apple.camera"]),
        Verb(usage: "record start APP [movie|asset-writer]", summary: "start recording with a movie file output (default) or an asset writer", rules: "R1", examples: ["record start com.example.recorder", "record start com.example.recorder asset-writer"]),
        Verb(usage: "record stop APP", summary: "finish the recording", rules: "R1", examples: ["record stop com.example.recorder"]),
        Verb(usage: "pip setup APP playback|video-call [--no-content-source] [--auto-from-inline] [--fills-window]", summary: "create APP's PiP controller", rules: "P1, P3", examples: ["pip setup com.example.videocall video-call", "pip setup com.example.player playback --no-content-source --auto-from-inline --fills-window"]),
        Verb(usage: "pip content-source APP on|off", summary: "set or clear the controller's content source", rules: "P1, P7", examples: ["pip content-source com.example.player off"]),
        Verb(usage: "pip release APP", summary: "release the PiP controller", rules: "P7", examples: ["pip release com.example.player"]),
        Verb(usage: "pip start APP [--programmatic]", summary: "start PiP on the user's request (or programmatically, which is refused)", rules: "P1, P2, P4", examples: ["pip start com.example.videocall", "pip start com.example.videocall --programmatic"]),
        Verb(usage: "pip stash|unstash APP", summary: "the user stashes the PiP window at the screen edge / brings it back", rules: "P5, C2.2", examples: ["pip stash com.example.videocall", "pip unstash com.example.videocall"]),
        Verb(usage: "pip close APP", summary: "the user closes the PiP window", rules: "P6", examples: ["pip close com.example.videocall"]),
        Verb(usage: "pip restore APP", summary: "the user taps restore: the app comes back full screen and gets restoreUserInterface", rules: "P6", examples: ["pip restore com.example.videocall"]),
        Verb(usage: "pip restore-complete APP", summary: "the app completes the restore (restored=true before the deadline)", rules: "P6", examples: ["pip restore-complete com.example.videocall"]),
        Verb(usage: "pip move APP --screen NODE --frame X,Y,W,H", summary: "drag / resize the PiP window", rules: "P8", examples: ["pip move com.example.videocall --screen display-1 --frame 40,40,400,225"]),
        Verb(usage: "pressure nominal|fair|serious|critical|shutdown [CAMERA]", summary: "this node reports a system pressure level: for a device its built-in camera system (or `builtin`), for a display the camera named CAMERA", rules: "S1, S2, S3", examples: ["pressure serious", "pressure shutdown builtin", "pressure critical center-stage"]),
        Verb(usage: "stage-manager on|off", summary: "turn Stage Manager on or off on this device", rules: "L3", examples: ["stage-manager on", "stage-manager off"]),
        Verb(usage: "auto-pip on|off", summary: "Settings > Multitasking > automatic PiP", rules: "P3", examples: ["auto-pip off"]),
        Verb(usage: "layout ltr|rtl", summary: "layout direction of this device", rules: "L2", examples: ["layout rtl"]),
        Verb(usage: "attach DEVICE", summary: "attach this display to DEVICE", rules: "L3, C10", examples: ["attach ipad-1"]),
        Verb(usage: "detach", summary: "detach this display (its windows return to the device, its cameras disconnect)", rules: "L3, C10", examples: ["detach"]),
        Verb(usage: "leave", summary: "this node leaves the cluster (unregisters)", rules: "K1", examples: ["leave"]),
    ] + audioVerbs

    /// Every verb with its usage, meaning and SPEC rules.
    public static var help: String {
        // One paragraph a verb, so that `--help` wraps each at the terminal's width.
        var text = "Actions (camsync ctl act NODE ACTION [ARGS]); APP is a bundle id of an app on NODE.\n"
        for verb in verbs {
            text += "\n\(verb.usage) — \(verb.summary) [\(verb.rules)]. Example: \(verb.examples[0])\n"
        }
        text += "\nNot offered: registering (a node does it when it starts), declaring a node dead and the PiP restore deadline (the coordinator issues those).\n"
        return text
    }

    /// Splits a line on white space and parses it.
    public static func parse(node: NodeID, line: String) throws(ActionParseError) -> Command {
        try parse(node: node, words: line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init))
    }

    public static func parse(node: NodeID, words: [String]) throws(ActionParseError) -> Command {
        guard let verb = words.first else {
            throw ActionParseError("no action given: say what to do, e.g. `open com.example.videocall` (`help` lists every action)")
        }
        var args = Arguments(verb: verb, words: Array(words.dropFirst()))
        let command = try parseVerb(verb.lowercased(), node: node, &args)
        try args.finish()
        return command
    }

    static func app(_ node: NodeID, _ args: inout Arguments, _ usage: String) throws(ActionParseError) -> AppID {
        AppID(device: node, bundleID: try args.positional("APP (a bundle id of an app on \(node))", usage: usage))
    }

    private static func parseVerb(_ verb: String, node: NodeID, _ args: inout Arguments) throws(ActionParseError) -> Command {
        switch verb {
        case "help", "--help", "-h":
            if let topic = args.words.first?.lowercased() {
                let matches = verbs.filter { $0.usage.prefix { $0 != " " } == topic }
                if !matches.isEmpty {
                    args.words.removeAll()
                    throw ActionParseError(matches.map { match in
                        "\(match.usage)\n    \(match.summary) [\(match.rules)]\n    e.g.\n"
                            + match.examples.map { "      \($0)" }.joined(separator: "\n")
                    }.joined(separator: "\n"), isHelpRequest: true)
                }
            }
            throw ActionParseError(help, isHelpRequest: true)
        case "open":
            let usage = "open APP [--from-notification]"
            let app = try app(node, &args, usage)
            return .openFullScreen(app, trigger: args.flag("--from-notification") ? .notification : .user)
        case "split":
            let usage = "split APP left|right"
            let app = try app(node, &args, usage)
            guard let word = args.next() else { throw ActionParseError("`split` needs a side: left or right (usage: \(usage))") }
            guard let side = SplitSide(rawValue: word.lowercased()) else {
                throw ActionParseError("`split` side must be left or right, not '\(word)'")
            }
            return .split(app, side: side)
        case "slide-over", "slideover":
            return .slideOver(try app(node, &args, "slide-over APP"))
        case "stage-open":
            let usage = "stage-open APP [--screen NODE] [--frame X,Y,W,H]"
            let app = try app(node, &args, usage)
            let screen = try args.option("--screen", usage: usage).map { NodeID($0) } ?? node
            let frame = try args.frameOption(usage: usage) ?? defaultStageFrame
            return .stageOpen(app, StageWindow(screen: screen, frame: frame))
        case "stage-move":
            let usage = "stage-move APP --screen NODE [--frame X,Y,W,H]"
            let app = try app(node, &args, usage)
            guard let screen = try args.option("--screen", usage: usage) else {
                throw ActionParseError("`stage-move` needs a target screen: --screen NODE (this device or an attached display)")
            }
            let frame = try args.frameOption(usage: usage) ?? defaultStageFrame
            return .stageMove(app, StageWindow(screen: NodeID(screen), frame: frame))
        case "stage-close":
            return .stageClose(try app(node, &args, "stage-close APP"))
        case "home":
            return .goHome(device: node)
        case "background":
            let usage = "background APP [home|other-app|notification]"
            let app = try app(node, &args, usage)
            let cause: BackgroundCause
            switch args.next()?.lowercased() {
            case nil, "home", "home-gesture": cause = .homeGesture
            case "other-app", "other": cause = .otherAppOpened
            case "notification": cause = .notificationTapped
            case let other?: throw ActionParseError("`background` cause must be home, other-app or notification, not '\(other)'")
            }
            return .sendToBackground(app, cause: cause)
        case "terminate", "quit":
            return .terminate(try app(node, &args, "terminate APP"))
        case "memory":
            let usage = "memory APP MB"
            let app = try app(node, &args, usage)
            guard let word = args.next() else { throw ActionParseError("`memory` needs the footprint in megabytes, e.g. `memory \(app.bundleID) 250`") }
            guard let mb = Int(word.lowercased().replacingSuffix("mb")), mb >= 0 else {
                throw ActionParseError("`memory` footprint must be a whole number of megabytes, not '\(word)'")
            }
            return .reportMemory(app, megabytes: mb)
        case "install":
            return try parseInstall(node: node, &args)
        case "session":
            return try parseSession(node: node, &args)
        case "record", "recording":
            let usage = "record start APP [movie|asset-writer] | record stop APP"
            guard let sub = args.next()?.lowercased() else { throw ActionParseError("`record` needs start or stop (usage: \(usage))") }
            switch sub {
            case "start":
                let app = try app(node, &args, usage)
                switch args.next()?.lowercased() {
                case nil, "movie", "movie-file": return .startRecording(app, .movieFile)
                case "asset-writer", "writer": return .startRecording(app, .assetWriter)
                case let other?: throw ActionParseError("`record start` output must be movie or asset-writer, not '\(other)'")
                }
            case "stop": return .stopRecording(try app(node, &args, usage))
            default: throw ActionParseError("`record` needs start or stop, not '\(sub)'")
            }
        case "pip":
            return try parsePiP(node: node, &args)
        case "audio":
            return try parseAudio(node: node, &args)
        case "pressure":
            let usage = "pressure nominal|fair|serious|critical|shutdown [CAMERA]"
            guard let word = args.next() else { throw ActionParseError("`pressure` needs a level: nominal, fair, serious, critical or shutdown") }
            guard let level = SystemPressureLevel.named(word.lowercased()) else {
                throw ActionParseError("`pressure` level must be nominal, fair, serious, critical or shutdown, not '\(word)' (usage: \(usage))")
            }
            switch args.next() {
            case nil, "builtin", "built-in": return .setPressure(.builtIn(device: node), level)
            case let camera?: return .setPressure(.external(CameraID(host: node, name: camera)), level)
            }
        case "stage-manager":
            return .setStageManager(device: node, enabled: try args.onOff("stage-manager"))
        case "auto-pip":
            return .setAutoPiP(device: node, enabled: try args.onOff("auto-pip"))
        case "layout":
            guard let word = args.next() else { throw ActionParseError("`layout` needs a direction: ltr or rtl") }
            switch word.lowercased() {
            case "ltr", "lefttoright", "left-to-right": return .setLayoutDirection(device: node, .leftToRight)
            case "rtl", "righttoleft", "right-to-left": return .setLayoutDirection(device: node, .rightToLeft)
            default: throw ActionParseError("`layout` direction must be ltr or rtl, not '\(word)'")
            }
        case "attach":
            guard let device = args.next() else {
                throw ActionParseError("`attach` needs the device to attach this display to, e.g. `attach ipad-1`")
            }
            return .attachDisplay(display: node, device: NodeID(device))
        case "detach":
            return .detachDisplay(display: node)
        case "leave", "unregister":
            return .unregisterNode(node)
        default:
            let known = verbs.map { String($0.usage.prefix { $0 != " " && $0 != "|" }) }
            let guess = known.min { editDistance($0, verb) < editDistance($1, verb) }
            let hint = guess.flatMap { editDistance($0, verb) <= 3 ? " — did you mean `\($0)`?" : nil } ?? ""
            throw ActionParseError("unknown action '\(verb)'\(hint) (`help` lists every action: \(Set(known).sorted().joined(separator: ", ")))")
        }
    }

    private static func parseInstall(node: NodeID, _ args: inout Arguments) throws(ActionParseError) -> Command {
        let usage = verbs.first { $0.usage.hasPrefix("install") }!.usage
        let bundle = try args.positional("BUNDLE (the new app's bundle id)", usage: usage)
        var spec = AppSpec(bundleID: bundle)
        if let target = try args.option("--deployment-target", usage: usage) {
            guard let value = Int(target), (1...99).contains(value) else {
                throw ActionParseError("`--deployment-target` must be an OS major version such as 15 or 16, not '\(target)'")
            }
            spec.deploymentTarget = value
        }
        spec.hasMultitaskingCameraAccessEntitlement = args.flag("--entitlement")
        spec.requiresFullScreen = args.flag("--requires-full-screen")
        spec.backgroundModeAudioAirPlayPiP = args.flag("--pip-background-mode")
        spec.isSystemCameraApp = args.flag("--system-camera")
        if let audio = try args.option("--audio", usage: usage) {
            guard let category = AudioSessionCategory.allCases.first(where: { $0.rawValue.lowercased() == audio.lowercased() }) else {
                throw ActionParseError("`--audio` must be one of \(AudioSessionCategory.allCases.map(\.rawValue).joined(separator: ", ")), not '\(audio)'")
            }
            spec.audioSessionCategory = category
        }
        if let memory = try args.option("--memory", usage: usage) {
            guard let mb = Int(memory), mb >= 0 else { throw ActionParseError("`--memory` must be whole megabytes, not '\(memory)'") }
            spec.memoryFootprintMB = mb
        }
        return .installApp(device: node, spec)
    }

    private static func parseSession(node: NodeID, _ args: inout Arguments) throws(ActionParseError) -> Command {
        let usage = verbs.first { $0.usage.hasPrefix("session configure") }!.usage
        guard let sub = args.next()?.lowercased() else {
            throw ActionParseError("`session` needs configure, start or stop (e.g. `session start com.example.videocall`)")
        }
        switch sub {
        case "start": return .startSession(try app(node, &args, "session start APP"))
        case "stop": return .stopSession(try app(node, &args, "session stop APP"))
        case "configure", "config":
            let app = try app(node, &args, usage)
            let cameras = try parseCameras(node: node, camera: try args.option("--camera", usage: usage),
                                           cameras: try args.option("--cameras", usage: usage))
            var configuration = SessionConfiguration(camera: cameras[0], additionalCameras: Array(cameras.dropFirst()))
            configuration.multitaskingCameraAccessEnabled = args.flag("--multitasking")
            configuration.proRAW = args.flag("--prores-raw") || args.flag("--proraw")
            configuration.deepFusion = args.flag("--deep-fusion")
            configuration.audioInput = args.flag("--audio-input")
            configuration.runByARKit = args.flag("--arkit")
            let resolutionWord = try args.option("--resolution", usage: usage)
            if let resolutionWord {
                guard let resolution = CaptureResolution.named(resolutionWord) else {
                    throw ActionParseError("`--resolution` must be 4k, 1080p, 720p or vga, not '\(resolutionWord)'")
                }
                configuration.resolution = resolution
            }
            if let fps = try args.option("--fps", usage: usage) {
                guard let value = Int(fps), value > 0 else { throw ActionParseError("`--fps` must be a positive whole frame rate such as 30, not '\(fps)'") }
                configuration.frameRate = value
            }
            if let outputs = try args.option("--outputs", usage: usage) {
                apply(try parseOutputs(outputs), resolutionGiven: resolutionWord != nil, to: &configuration)
            }
            if let cost = try args.option("--cost", usage: usage) {
                guard let value = Double(cost), value >= 0 else { throw ActionParseError("`--cost` must be a non-negative number such as 0.8, not '\(cost)'") }
                configuration.hardwareCost = value
            }
            return .configureSession(app, configuration)
        default:
            throw ActionParseError("`session` needs configure, start or stop, not '\(sub)'")
        }
    }

    private static func parsePiP(node: NodeID, _ args: inout Arguments) throws(ActionParseError) -> Command {
        let subs = "setup, content-source, release, start, stash, unstash, close, restore, restore-complete or move"
        guard let sub = args.next()?.lowercased() else { throw ActionParseError("`pip` needs one of \(subs)") }
        let usage = "pip \(sub) APP"
        switch sub {
        case "setup":
            let usage = "pip setup APP playback|video-call [--no-content-source] [--auto-from-inline] [--fills-window]"
            let app = try app(node, &args, usage)
            guard let kindWord = args.next() else { throw ActionParseError("`pip setup` needs a kind: playback or video-call") }
            let kind: PiPKind
            switch kindWord.lowercased() {
            case "playback": kind = .playback
            case "video-call", "videocall": kind = .videoCall
            default: throw ActionParseError("`pip setup` kind must be playback or video-call, not '\(kindWord)'")
            }
            return .setupPiP(app, PiPControllerSetup(
                kind: kind, hasContentSource: !args.flag("--no-content-source"),
                canStartAutomaticallyFromInline: args.flag("--auto-from-inline"), playingVideoFillsWindow: args.flag("--fills-window")))
        case "content-source":
            let app = try app(node, &args, "pip content-source APP on|off")
            return .setPiPContentSource(app, present: try args.onOff("pip content-source"))
        case "release": return .releasePiP(try app(node, &args, usage))
        case "start":
            let app = try app(node, &args, "pip start APP [--programmatic]")
            return .startPiP(app, trigger: args.flag("--programmatic") ? .programmatic : .user)
        case "stash": return .stashPiP(try app(node, &args, usage))
        case "unstash": return .unstashPiP(try app(node, &args, usage))
        case "close", "stop": return .closePiP(try app(node, &args, usage))
        case "restore": return .restorePiP(try app(node, &args, usage))
        case "restore-complete", "complete-restore": return .completePiPRestore(try app(node, &args, usage))
        case "move":
            let usage = "pip move APP --screen NODE --frame X,Y,W,H"
            let app = try app(node, &args, usage)
            guard let screen = try args.option("--screen", usage: usage) else {
                throw ActionParseError("`pip move` needs a screen: --screen NODE (this device or an attached display)")
            }
            guard let frame = try args.frameOption(usage: usage) else {
                throw ActionParseError("`pip move` needs a frame: --frame X,Y,W,H (e.g. 24,24,320,180)")
            }
            return .movePiP(app, screen: NodeID(screen), frame: frame)
        default:
            throw ActionParseError("`pip` needs one of \(subs), not '\(sub)'")
        }
    }

    /// "X,Y,W,H" → Frame.
    public static func parseFrame(_ text: String) -> Frame? {
        let parts = text.split(separator: ",").map { Int($0.trimmingSpaces()) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else { return nil }
        return Frame(x: x, y: y, width: w, height: h)
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The words after the verb: positionals in order, `--flags` and `--option VALUE` anywhere.
struct Arguments {
    let verb: String
    var words: [String]

    init(verb: String, words: [String]) {
        self.verb = verb
        self.words = words
    }

    /// The next word that is not an option.
    mutating func next() -> String? {
        // Skip options and the values of valued options (`--screen display-1`).
        var i = 0
        while i < words.count {
            if words[i].hasPrefix("--") {
                i += Self.valuedOptions.contains(words[i]) ? 2 : 1
                continue
            }
            return words.remove(at: i)
        }
        return nil
    }

    static let valuedOptions: Set<String> = ["--screen", "--frame", "--camera", "--cameras", "--resolution", "--fps", "--outputs", "--cost",
                                             "--deployment-target", "--audio", "--memory"]

    mutating func positional(_ what: String, usage: String) throws(ActionParseError) -> String {
        guard let word = next() else { throw ActionParseError("`\(verb)` needs \(what) (usage: \(usage))") }
        return word
    }

    mutating func flag(_ name: String) -> Bool {
        guard let index = words.firstIndex(of: name) else { return false }
        words.remove(at: index)
        return true
    }

    mutating func option(_ name: String, usage: String) throws(ActionParseError) -> String? {
        if let index = words.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(words.remove(at: index).dropFirst(name.count + 1))
            guard !value.isEmpty else { throw ActionParseError("`\(name)` needs a value (usage: \(usage))") }
            return value
        }
        guard let index = words.firstIndex(of: name) else { return nil }
        guard index + 1 < words.count, !words[index + 1].hasPrefix("--") else {
            throw ActionParseError("`\(name)` needs a value (usage: \(usage))")
        }
        let value = words[index + 1]
        words.removeSubrange(index...(index + 1))
        return value
    }

    mutating func frameOption(usage: String) throws(ActionParseError) -> Frame? {
        guard let text = try option("--frame", usage: usage) else { return nil }
        guard let frame = ActionVerbs.parseFrame(text) else {
            throw ActionParseError("`--frame` must be four whole numbers X,Y,W,H such as 0,0,800,600, not '\(text)'")
        }
        guard frame.width > 0, frame.height > 0 else {
            throw ActionParseError("`--frame` width and height must be positive, not \(frame.width)x\(frame.height)")
        }
        return frame
    }

    mutating func onOff(_ what: String) throws(ActionParseError) -> Bool {
        guard let word = next() else { throw ActionParseError("`\(what)` needs on or off") }
        switch word.lowercased() {
        case "on", "true", "yes", "enable", "enabled": return true
        case "off", "false", "no", "disable", "disabled": return false
        default: throw ActionParseError("`\(what)` takes on or off, not '\(word)'")
        }
    }

    func finish() throws(ActionParseError) {
        guard words.isEmpty else {
            throw ActionParseError("`\(verb)` does not take \(words.map { "'\($0)'" }.joined(separator: " ")) (`help \(verb)` shows its usage)")
        }
    }
}

extension SystemPressureLevel {
    /// The level by its name (nominal, fair, serious, critical, shutdown), as verbs and scenario files spell it.
    public static func named(_ word: String) -> Self? {
        switch word {
        case "nominal": .nominal
        case "fair": .fair
        case "serious": .serious
        case "critical": .critical
        case "shutdown": .shutdown
        default: nil
        }
    }
}

extension CaptureOutput {
    /// The output by its name (video, movie, photo, asset-writer, depth, metadata, audio), as verbs and scenario files spell it.
    public static func named(_ word: String) -> Self? {
        switch word {
        case "video", "videodata", "video-data": .videoData
        case "movie", "moviefile", "movie-file": .movieFile
        case "photo": .photo
        case "asset-writer", "assetwriter", "writer": .assetWriter
        case "depth", "depthdata", "depth-data": .depthData
        case "metadata": .metadata
        case "audio", "audiodata", "audio-data": .audioData
        default: nil
        }
    }
}

extension String {
    func replacingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
