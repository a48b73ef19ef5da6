import CamsyncPolicy
import CamsyncVerbs
import Testing

@Suite struct ActionVerbsTests {
    static let ipad: NodeID = "ipad-1"
    static func app(_ bundle: String) -> AppID { AppID(device: ipad, bundleID: bundle) }
    static let call = app("com.example.videocall")
    static let front = CameraID(host: ipad, name: "front")

    struct Case: CustomTestStringConvertible, Sendable {
        var words: String
        var node: NodeID = ActionVerbsTests.ipad
        var expected: Command
        var testDescription: String { words }
    }

    static let cases: [Case] = [
        Case(words: "open com.example.videocall", expected: .openFullScreen(call, trigger: .user)),
        Case(words: "open com.example.notes --from-notification", expected: .openFullScreen(app("com.example.notes"), trigger: .notification)),
        Case(words: "split com.example.notes right", expected: .split(app("com.example.notes"), side: .right)),
        Case(words: "split com.example.notes LEFT", expected: .split(app("com.example.notes"), side: .left)),
        Case(words: "slide-over com.example.notes", expected: .slideOver(app("com.example.notes"))),
        Case(words: "stage-open com.example.notes", expected: .stageOpen(app("com.example.notes"), StageWindow(screen: ipad, frame: ActionVerbs.defaultStageFrame))),
        Case(words: "stage-open com.example.recorder --screen display-1 --frame 10,10,640,480",
             expected: .stageOpen(app("com.example.recorder"), StageWindow(screen: "display-1", frame: Frame(x: 10, y: 10, width: 640, height: 480)))),
        Case(words: "stage-move com.example.notes --screen display-1", expected: .stageMove(app("com.example.notes"), StageWindow(screen: "display-1", frame: ActionVerbs.defaultStageFrame))),
        Case(words: "stage-move com.example.notes --frame=1,2,3,4 --screen display-1", expected: .stageMove(app("com.example.notes"), StageWindow(screen: "display-1", frame: Frame(x: 1, y: 2, width: 3, height: 4)))),
        Case(words: "stage-close com.example.notes", expected: .stageClose(app("com.example.notes"))),
        Case(words: "home", expected: .goHome(device: ipad)),
        Case(words: "background com.example.videocall", expected: .sendToBackground(call, cause: .homeGesture)),
        Case(words: "background com.example.videocall notification", expected: .sendToBackground(call, cause: .notificationTapped)),
        Case(words: "background com.example.videocall other-app", expected: .sendToBackground(call, cause: .otherAppOpened)),
        Case(words: "terminate com.apple.camera", expected: .terminate(app("com.apple.camera"))),
        Case(words: "memory com.example.videocall 350", expected: .reportMemory(call, megabytes: 350)),
        Case(words: "install com.example.new", expected: .installApp(device: ipad, AppSpec(bundleID: "com.example.new"))),
        Case(words: "install com.example.tv --pip-background-mode --audio playback --deployment-target 15 --entitlement --requires-full-screen --system-camera --memory 80",
             expected: .installApp(device: ipad, AppSpec(bundleID: "com.example.tv", deploymentTarget: 15, hasMultitaskingCameraAccessEntitlement: true,
                                                         requiresFullScreen: true, backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playback,
                                                         isSystemCameraApp: true, memoryFootprintMB: 80))),
        Case(words: "session configure com.example.videocall --camera front", expected: .configureSession(call, SessionConfiguration(camera: front))),
        Case(words: "session configure com.example.recorder --camera display-1/center-stage --multitasking --resolution 4k --prores-raw --deep-fusion --fps 60 --outputs video,movie --cost 0.5",
             expected: .configureSession(app("com.example.recorder"), SessionConfiguration(
                camera: CameraID(host: "display-1", name: "center-stage"), multitaskingCameraAccessEnabled: true, outputs: [.videoData, .movieFile],
                resolution: .uhd4K, proRAW: true, deepFusion: true, frameRate: 60, hardwareCost: 0.5))),
        Case(words: "session configure com.example.videocall --camera front --resolution vga --outputs photo,asset-writer,depth,metadata",
             expected: .configureSession(call, SessionConfiguration(camera: front, outputs: [.photo, .assetWriter, .depthData, .metadata], resolution: .vga))),
        // C11, C12: video data outputs with their own resolutions (the largest is the format), a movie file, audio data.
        Case(words: "session configure com.example.recorder --camera back --outputs video:4k,video:preview,movie,audio",
             expected: .configureSession(app("com.example.recorder"), SessionConfiguration(
                camera: CameraID(host: ipad, name: "back"), outputs: [.videoData, .videoData, .movieFile, .audioData], resolution: .uhd4K,
                audioInput: true, videoDataResolutions: [.uhd4K, .hd720]))),
        Case(words: "session configure com.example.recorder --camera back --resolution 1080p --outputs video,video:vga",
             expected: .configureSession(app("com.example.recorder"), SessionConfiguration(
                camera: CameraID(host: ipad, name: "back"), outputs: [.videoData, .videoData], videoDataResolutions: [.hd1080, .vga]))),
        // C13, C14
        Case(words: "session configure com.example.recorder --cameras lidar,telephoto,ultra-wide --resolution 720p --arkit",
             expected: .configureSession(app("com.example.recorder"), SessionConfiguration(
                camera: CameraID(host: ipad, name: "lidar"), resolution: .hd720, runByARKit: true,
                additionalCameras: [CameraID(host: ipad, name: "telephoto"), CameraID(host: ipad, name: "ultra-wide")]))),
        Case(words: "session configure com.example.recorder --camera front --cameras back",
             expected: .configureSession(app("com.example.recorder"), SessionConfiguration(
                camera: CameraID(host: ipad, name: "front"), additionalCameras: [CameraID(host: ipad, name: "back")]))),
        Case(words: "session start com.example.videocall", expected: .startSession(call)),
        Case(words: "session stop com.apple.camera", expected: .stopSession(app("com.apple.camera"))),
        Case(words: "record start com.example.recorder", expected: .startRecording(app("com.example.recorder"), .movieFile)),
        Case(words: "record start com.example.recorder asset-writer", expected: .startRecording(app("com.example.recorder"), .assetWriter)),
        Case(words: "record stop com.example.recorder", expected: .stopRecording(app("com.example.recorder"))),
        Case(words: "pip setup com.example.videocall video-call", expected: .setupPiP(call, PiPControllerSetup(kind: .videoCall))),
        Case(words: "pip setup com.example.player playback --no-content-source --auto-from-inline --fills-window",
             expected: .setupPiP(app("com.example.player"), PiPControllerSetup(kind: .playback, hasContentSource: false,
                                                                              canStartAutomaticallyFromInline: true, playingVideoFillsWindow: true))),
        Case(words: "pip content-source com.example.player off", expected: .setPiPContentSource(app("com.example.player"), present: false)),
        Case(words: "pip content-source com.example.player on", expected: .setPiPContentSource(app("com.example.player"), present: true)),
        Case(words: "pip release com.example.player", expected: .releasePiP(app("com.example.player"))),
        Case(words: "pip start com.example.videocall", expected: .startPiP(call, trigger: .user)),
        Case(words: "pip start com.example.videocall --programmatic", expected: .startPiP(call, trigger: .programmatic)),
        Case(words: "pip stash com.example.videocall", expected: .stashPiP(call)),
        Case(words: "pip unstash com.example.videocall", expected: .unstashPiP(call)),
        Case(words: "pip close com.example.videocall", expected: .closePiP(call)),
        Case(words: "pip restore com.example.videocall", expected: .restorePiP(call)),
        Case(words: "pip restore-complete com.example.videocall", expected: .completePiPRestore(call)),
        Case(words: "pip move com.example.videocall --screen display-1 --frame 40,40,400,225",
             expected: .movePiP(call, screen: "display-1", frame: Frame(x: 40, y: 40, width: 400, height: 225))),
        Case(words: "pressure serious", expected: .setPressure(.builtIn(device: ipad), .serious)),
        Case(words: "pressure shutdown builtin", expected: .setPressure(.builtIn(device: ipad), .shutdown)),
        Case(words: "pressure critical center-stage", node: "display-1",
             expected: .setPressure(.external(CameraID(host: "display-1", name: "center-stage")), .critical)),
        Case(words: "stage-manager on", expected: .setStageManager(device: ipad, enabled: true)),
        Case(words: "stage-manager off", expected: .setStageManager(device: ipad, enabled: false)),
        Case(words: "auto-pip off", expected: .setAutoPiP(device: ipad, enabled: false)),
        Case(words: "layout rtl", expected: .setLayoutDirection(device: ipad, .rightToLeft)),
        Case(words: "layout ltr", expected: .setLayoutDirection(device: ipad, .leftToRight)),
        Case(words: "attach ipad-1", node: "display-1", expected: .attachDisplay(display: "display-1", device: ipad)),
        Case(words: "detach", node: "display-1", expected: .detachDisplay(display: "display-1")),
        Case(words: "leave", expected: .unregisterNode(ipad)),
        // A1–A8
        Case(words: "audio category com.example.game ambient", expected: .setAudioCategory(app("com.example.game"), AudioSessionConfiguration(category: .ambient))),
        Case(words: "audio category com.example.navigation playback --duck-others",
             expected: .setAudioCategory(app("com.example.navigation"), AudioSessionConfiguration(category: .playback, duckOthers: true))),
        Case(words: "audio category com.example.videocall playAndRecord --mix-with-others",
             expected: .setAudioCategory(call, AudioSessionConfiguration(category: .playAndRecord, mixWithOthers: true))),
        Case(words: "audio activate com.example.music", expected: .activateAudioSession(app("com.example.music"))),
        Case(words: "audio deactivate com.example.videocall", expected: .deactivateAudioSession(call)),
        Case(words: "session configure com.example.videocall --camera front --audio-input",
             expected: .configureSession(call, SessionConfiguration(camera: front, audioInput: true))),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        #expect(try ActionVerbs.parse(node: c.node, line: c.words) == c.expected)
    }

    @Test("every example in the help parses, and the help names every verb with its rules")
    func everyDocumentedExampleParses() throws {
        for verb in ActionVerbs.verbs {
            #expect(ActionVerbs.help.contains(verb.usage))
            #expect(ActionVerbs.help.contains("[\(verb.rules)]"))
            for example in verb.examples {
                let node: NodeID = example.hasPrefix("attach") || example.hasPrefix("detach") || example.contains("center-stage") && example.hasPrefix("pressure") ? "display-1" : "ipad-1"
                #expect(throws: Never.self, "\(example)") { try ActionVerbs.parse(node: node, line: example) }
            }
        }
    }

    @Test("every user-issuable Command case has a verb")
    func coversEveryCommand() throws {
        // One parsed example per case name; the coordinator-only ones are excluded on purpose.
        let parsed = Set(Self.cases.map { "\($0.expected)".prefix { $0 != "(" } })
        let all: Set<Substring> = ["registerNode", "unregisterNode", "declareNodeDead", "attachDisplay", "detachDisplay", "setStageManager",
                                   "setAutoPiP", "setLayoutDirection", "installApp", "openFullScreen", "split", "slideOver", "stageOpen",
                                   "stageMove", "stageClose", "goHome", "sendToBackground", "terminate", "reportMemory", "configureSession",
                                   "startSession", "stopSession", "startRecording", "stopRecording", "setupPiP", "setPiPContentSource",
                                   "releasePiP", "startPiP", "stashPiP", "unstashPiP", "movePiP", "closePiP", "restorePiP",
                                   "completePiPRestore", "pipRestoreDeadlinePassed", "setPressure",
                                   "setAudioCategory", "activateAudioSession", "deactivateAudioSession"]
        #expect(all.subtracting(parsed) == ["registerNode", "declareNodeDead", "pipRestoreDeadlinePassed"])
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var words: String
        var message: String
        var testDescription: String { words }
    }

    @Test(arguments: [
        Bad(words: "", message: "no action given"),
        Bad(words: "split com.example.notes", message: "`split` needs a side: left or right"),
        Bad(words: "split com.example.notes up", message: "`split` side must be left or right, not 'up'"),
        Bad(words: "split", message: "`split` needs APP"),
        Bad(words: "opn com.example.notes", message: "unknown action 'opn' — did you mean `open`?"),
        Bad(words: "open com.example.notes extra", message: "`open` does not take 'extra'"),
        Bad(words: "stage-move com.example.notes", message: "`stage-move` needs a target screen: --screen NODE"),
        Bad(words: "stage-open com.example.notes --frame 1,2,3", message: "`--frame` must be four whole numbers X,Y,W,H"),
        Bad(words: "stage-open com.example.notes --frame 0,0,0,10", message: "width and height must be positive"),
        Bad(words: "stage-open com.example.notes --screen", message: "`--screen` needs a value"),
        Bad(words: "memory com.example.notes lots", message: "whole number of megabytes, not 'lots'"),
        Bad(words: "memory com.example.notes", message: "`memory` needs the footprint in megabytes"),
        Bad(words: "session configure com.example.notes", message: "`session configure` needs a camera: --camera NAME"),
        Bad(words: "session configure com.example.notes --camera front --resolution 8k", message: "`--resolution` must be 4k, 1080p, 720p or vga, not '8k'"),
        Bad(words: "session configure com.example.notes --camera front --fps fast", message: "`--fps` must be a positive whole frame rate"),
        Bad(words: "session configure com.example.notes --camera front --outputs video,hologram", message: "not 'hologram'"),
        Bad(words: "session configure com.example.notes --camera front --outputs video:8k", message: "must be 4k, 1080p, 720p, vga or preview, not '8k'"),
        Bad(words: "session configure com.example.notes --camera front --outputs movie:4k", message: "only a video data output takes a resolution"),
        Bad(words: "session configure com.example.notes --cameras front,,back", message: "`--cameras` must be NAME,NAME"),
        Bad(words: "session configure com.example.notes --camera front --cost cheap", message: "`--cost` must be a non-negative number"),
        Bad(words: "session configure com.example.notes --camera /front", message: "`--camera` must be NAME or NODE/NAME"),
        Bad(words: "session pause com.example.notes", message: "`session` needs configure, start or stop, not 'pause'"),
        Bad(words: "audio", message: "`audio` needs category, activate or deactivate"),
        Bad(words: "audio play com.example.music", message: "`audio` needs category, activate or deactivate, not 'play'"),
        Bad(words: "audio activate", message: "`audio` needs APP"),
        Bad(words: "audio category com.example.music", message: "`audio category` needs a category: playback"),
        Bad(words: "audio category com.example.music loud", message: "`audio category` must be one of playback, playAndRecord, ambient, soloAmbient, record, not 'loud'"),
        Bad(words: "record com.example.notes", message: "`record` needs start or stop, not 'com.example.notes'"),
        Bad(words: "record start com.example.notes tape", message: "output must be movie or asset-writer, not 'tape'"),
        Bad(words: "pip setup com.example.videocall", message: "`pip setup` needs a kind: playback or video-call"),
        Bad(words: "pip setup com.example.videocall facetime", message: "kind must be playback or video-call, not 'facetime'"),
        Bad(words: "pip content-source com.example.player maybe", message: "`pip content-source` takes on or off, not 'maybe'"),
        Bad(words: "pip move com.example.player --screen ipad-1", message: "`pip move` needs a frame: --frame X,Y,W,H"),
        Bad(words: "pip move com.example.player --frame 1,2,3,4", message: "`pip move` needs a screen"),
        Bad(words: "pip jump com.example.player", message: "`pip` needs one of setup"),
        Bad(words: "pressure", message: "`pressure` needs a level"),
        Bad(words: "pressure hot", message: "`pressure` level must be nominal, fair, serious, critical or shutdown, not 'hot'"),
        Bad(words: "stage-manager maybe", message: "`stage-manager` takes on or off"),
        Bad(words: "layout up", message: "`layout` direction must be ltr or rtl, not 'up'"),
        Bad(words: "attach", message: "`attach` needs the device"),
        Bad(words: "background com.example.notes lunch", message: "`background` cause must be home, other-app or notification"),
        Bad(words: "install", message: "`install` needs BUNDLE"),
        Bad(words: "install com.example.x --audio loud", message: "`--audio` must be one of playback, playAndRecord"),
    ])
    func refuses(_ bad: Bad) {
        do {
            let command = try ActionVerbs.parse(node: "ipad-1", line: bad.words)
            Issue.record("'\(bad.words)' parsed to \(command)")
        } catch {
            #expect(error.message.contains(bad.message), "\(error.message)")
            #expect(!error.isHelpRequest)
        }
    }

    @Test func helpIsARequestNotAnError() {
        do {
            _ = try ActionVerbs.parse(node: "ipad-1", line: "help")
            Issue.record("help parsed to a command")
        } catch {
            #expect(error.isHelpRequest)
            #expect(error.message.contains("pip move APP --screen NODE --frame X,Y,W,H"))
        }
        do {
            _ = try ActionVerbs.parse(node: "ipad-1", line: "help split")
        } catch {
            #expect(error.isHelpRequest)
            #expect(error.message.hasPrefix("split APP left|right"))
        }
    }
}
