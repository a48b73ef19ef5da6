import CamsyncPolicy
import CamsyncVerbs
import Testing

/// The describer (`Command.words`, `Event.words`): every case in the verb table's words, never a type dump,
/// and every command the verb table offers parses back to itself.
@Suite struct WordsTests {
    static let ipad: NodeID = "ipad-1"
    static let call = AppID(device: ipad, bundleID: "com.example.videocall")
    static let camera = AppID(device: ipad, bundleID: "com.apple.camera")
    static let frame = Frame(x: 40, y: 40, width: 400, height: 225)
    static let centerStage = CameraID(host: "display-1", name: "center-stage")

    /// What a person must never read: module and type names, Swift's dump of a value.
    static let leaks = ["CamsyncPolicy", "Optional", "NodeID", "AppID", "CameraID", "CameraSystemID", "StageWindow", "Frame",
                        "SessionConfiguration", "PiPControllerSetup", "AppSpec", "NodeRegistration", "DeviceAttributes",
                        "DisplayAttributes", "CameraSpec", "AudioSessionConfiguration", "GrantToken", "InterruptionReason",
                        "rawValue", "builtIn(", "external(", "stageWindow(", "device:", "node:", "app:", "bundleID", "nil"]

    static func leaks(in text: String) -> [String] {
        var found = leaks.filter { text.contains($0) }
        // A call-like `name(` is a Swift dump of an enum case or a struct.
        let characters = Array(text)
        for (index, character) in characters.enumerated() where character == "(" && index > 0 && characters[index - 1].isLetter {
            found.append(String(characters[max(0, index - 12)...index]))
        }
        return found
    }

    static let registration = NodeRegistration(node: "ipad-2", attributes: .device(DeviceAttributes(
        model: "iPad Pro 11-inch", osMajor: 17, cameras: [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back)],
        apps: [AppSpec(bundleID: "com.example.videocall")])),
        assertions: [AppAssertion(bundleID: "com.example.videocall", scene: .fullScreen)])
    static let displayRegistration = NodeRegistration(node: "display-1", attributes: .display(DisplayAttributes(
        name: "Studio Display", attachedTo: ipad, cameras: [CameraSpec(name: "center-stage", position: .external)])))

    /// Every command case: the verb table's examples and the three nobody types.
    static let commands: [Command] = ActionVerbsTests.cases.map(\.expected) + [
        .registerNode(registration), .registerNode(displayRegistration), .declareNodeDead("ipad-2"), .pipRestoreDeadlinePassed(call),
    ]

    static let events: [Event] = [
        .nodeJoined(ipad, .device), .nodeRejoined("display-1", .display), .nodeLeft(ipad, .declaredDead), .nodeLeft(ipad, .unregistered),
        .displayAttached(display: "display-1", device: ipad), .displayDetached(display: "display-1", device: ipad),
        .deviceSettingsChanged(ipad), .appInstalled(call),
        .sceneChanged(call, from: .fullScreen, to: .stageWindow(StageWindow(screen: "display-1", frame: frame))),
        .sceneChanged(call, from: .notRunning, to: .background),
        .roleChanged(call, .primary), .roleChanged(call, nil), .appTerminated(call, .memoryLimit),
        .sessionConfigured(call, hardwareCost: 0.42, multitaskingCameraAccessSupported: true),
        .sessionStarted(call), .sessionStopped(call), .sessionWasInterrupted(call, .videoDeviceInUseByAnotherClient),
        .sessionInterruptionEnded(call), .sessionCameraDisconnected(call, centerStage),
        .cameraGranted(.builtIn(device: ipad), camera, GrantToken(2)), .cameraReleased(.external(centerStage), call),
        .pressureChanged(.builtIn(device: ipad), .serious), .throttleAdvised(.builtIn(device: ipad), call, maxFrameRate: 15),
        .recordingStarted(call, .movieFile), .recordingFinished(call, .assetWriter, multitaskedDuringRecording: true),
        .recordingQualityAlert(device: ipad, app: call), .warning(call, .multitaskingCameraAccessNotRecommended),
        .pipControllerChanged(call), .pipDidStart(call, screen: ipad, frame: frame), .pipDidStop(call), .pipSuspended(call),
        .pipResumed(call), .pipStashed(call), .pipUnstashed(call), .pipMoved(call, screen: "display-1", frame: frame),
        .pipRestoreUserInterface(call), .pipRestoreFinished(call, restored: false),
        .audioSessionConfigured(call, AudioSessionConfiguration(category: .playback, mixWithOthers: true)),
        .audioSessionActivated(call), .audioSessionDeactivated(call), .audioInterruptionBegan(call, .appWasSuspended),
        .audioInterruptionEnded(call, shouldResume: true), .audioDuckingBegan(call), .audioDuckingEnded(call),
        .secondaryAudioSilenceHintBegan(call), .secondaryAudioSilenceHintEnded(call),
    ]

    @Test(arguments: commands)
    func commandReadsWithoutTypeNames(_ command: Command) {
        let text = command.words.description
        #expect(Self.leaks(in: text).isEmpty, "\(text)")
        #expect(!text.isEmpty && text.count < 300, "\(text)")
    }

    @Test(arguments: ActionVerbsTests.cases.map(\.expected))
    func commandParsesBack(_ command: Command) throws {
        let words = command.words
        #expect(words.isAction)
        #expect(try ActionVerbs.parse(node: words.node, words: words.words) == command, "\(words)")
        // … also from the one line `ctl watch` prints.
        let line = words.description.split(separator: " ").map(String.init)
        #expect(try ActionVerbs.parse(node: NodeID(line[0]), words: Array(line.dropFirst())) == command)
    }

    @Test("what nobody types is described, not offered", arguments: [
        (Command.declareNodeDead("ipad-2"), "declare-dead ipad-2"),
        (.pipRestoreDeadlinePassed(call), "pip restore-deadline-passed ipad-1/com.example.videocall"),
        (.registerNode(registration), #"register ipad-2 device "iPad Pro 11-inch" iPadOS 17, cameras front,back, 1 app re-asserting 1 app"#),
        (.registerNode(displayRegistration), #"register display-1 display "Studio Display" for ipad-1 with cameras center-stage"#),
    ])
    func notOffered(_ command: Command, _ expected: String) {
        #expect(!command.words.isAction)
        #expect(command.words.description == expected)
    }

    @Test(arguments: events)
    func eventReadsWithoutTypeNames(_ event: Event) {
        let text = event.words
        #expect(Self.leaks(in: text).isEmpty, "\(text)")
        #expect(!text.isEmpty && text.count < 200, "\(text)")
    }

    @Test("examples read as the verb table and AVFoundation say them", arguments: [
        (Event.sessionWasInterrupted(call, .videoDeviceInUseByAnotherClient), "ipad-1/com.example.videocall wasInterrupted videoDeviceInUseByAnotherClient (3)"),
        (.cameraGranted(.builtIn(device: ipad), camera, GrantToken(2)), "camera ipad-1/builtin granted to ipad-1/com.apple.camera, token 2"),
        (.sceneChanged(call, from: .fullScreen, to: .stageWindow(StageWindow(screen: "display-1", frame: frame))),
         "ipad-1/com.example.videocall fullScreen → stage window on display-1 at 40,40,400,225"),
        (.roleChanged(call, nil), "ipad-1/com.example.videocall role none"),
    ])
    func eventExamples(_ event: Event, _ expected: String) {
        #expect(event.words == expected)
    }

    @Test("the samples cover every Command and Event case")
    func samplesCoverEveryCase() {
        func caseName(_ value: Any) -> Substring { "\(value)".prefix { $0 != "(" } }
        #expect(Set(Self.commands.map(caseName)).count == 39)
        let eventCases: Set<Substring> = [
            "nodeJoined", "nodeRejoined", "nodeLeft", "displayAttached", "displayDetached", "deviceSettingsChanged", "appInstalled",
            "sceneChanged", "roleChanged", "appTerminated", "sessionConfigured", "sessionStarted", "sessionStopped",
            "sessionWasInterrupted", "sessionInterruptionEnded", "sessionCameraDisconnected", "cameraGranted", "cameraReleased",
            "pressureChanged", "throttleAdvised", "recordingStarted", "recordingFinished", "recordingQualityAlert", "warning",
            "pipControllerChanged", "pipDidStart", "pipDidStop", "pipSuspended", "pipResumed", "pipStashed", "pipUnstashed", "pipMoved",
            "pipRestoreUserInterface", "pipRestoreFinished", "audioSessionConfigured", "audioSessionActivated", "audioSessionDeactivated",
            "audioInterruptionBegan", "audioInterruptionEnded", "audioDuckingBegan", "audioDuckingEnded",
            "secondaryAudioSilenceHintBegan", "secondaryAudioSilenceHintEnded",
        ]
        #expect(Set(Self.events.map(caseName)) == eventCases)
    }
}
