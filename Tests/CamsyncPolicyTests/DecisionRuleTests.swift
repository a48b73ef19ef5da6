import Testing
@testable import CamsyncPolicy

/// The engine names the SPEC rule of every decision (`PolicyEngine.decide`, `ctl why`): C2's steps,
/// C4 preemption, C6 return, A7, C13, the audio rules; and `decide` gives exactly `apply`'s events.
@Suite struct DecisionRuleTests {
    static let ipad: NodeID = "ipad"
    static var call: AppID { .on(ipad, Apps.call) }
    static var camera: AppID { .on(ipad, Apps.camera) }
    static var notes: AppID { .on(ipad, Apps.notes) }
    static var scanner: AppID { .on(ipad, Apps.scanner) }
    static var recorder: AppID { .on(ipad, Apps.recorder) }
    static var music: AppID { .on(ipad, Apps.music) }
    static var video: AppID { .on(ipad, Apps.video) }

    struct Story: CustomTestStringConvertible, Sendable {
        var name: String
        var commands: [Command]
        /// The app, what of it, the rule the last decision about it must name, and that decision's event.
        var app: AppID
        var facet: DecisionLedger.Facet
        var rule: RuleID
        var event: Event
        var testDescription: String { name }
    }

    static func running(_ app: AppID, multitasking: Bool = false, audioInput: Bool = false, arKit: Bool = false) -> [Command] {
        [.openFullScreen(app, trigger: .user),
         .configureSession(app, SessionConfiguration(camera: front(app.device), multitaskingCameraAccessEnabled: multitasking,
                                                     audioInput: audioInput, runByARKit: arKit)),
         .startSession(app)]
    }

    static let stories: [Story] = [
        Story(name: "C1: a first grant of a free camera preempts nobody", commands: running(call),
              app: call, facet: .session, rule: "C1", event: .sessionStarted(call)),
        Story(name: "C1: Camera.app gets the camera the call left by going to background (C2.1), preempting nobody",
              commands: running(call) + [.openFullScreen(camera, trigger: .user)],
              app: camera, facet: .session, rule: "C1", event: .sessionStarted(camera)),
        Story(name: "C4: Camera.app takes the camera from the call in PiP",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall)),
                                                             .startPiP(call, trigger: .user), .openFullScreen(camera, trigger: .user)],
              app: camera, facet: .session, rule: "C4", event: .sessionStarted(camera)),
        Story(name: "C4: the holder it takes the camera from is interrupted by C4",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall)),
                                                             .startPiP(call, trigger: .user), .openFullScreen(camera, trigger: .user)],
              app: call, facet: .session, rule: "C4", event: .sessionWasInterrupted(call, .videoDeviceInUseByAnotherClient)),
        Story(name: "C6: the camera returns to the call when Camera.app stops",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall)),
                                                             .startPiP(call, trigger: .user), .openFullScreen(camera, trigger: .user),
                                                             .stopSession(camera)],
              app: call, facet: .session, rule: "C6", event: .sessionInterruptionEnded(call)),
        Story(name: "C2.1: in background without PiP", commands: running(call) + [.sendToBackground(call, cause: .homeGesture)],
              app: call, facet: .session, rule: "C2.1", event: .sessionWasInterrupted(call, .videoDeviceNotAvailableInBackground)),
        Story(name: "C2.2: a stashed video-call PiP (P5)",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall)),
                                                             .startPiP(call, trigger: .user), .openFullScreen(notes, trigger: .user),
                                                             .stashPiP(call)],
              app: call, facet: .session, rule: "C2.2", event: .sessionWasInterrupted(call, .videoDeviceNotAvailableInBackground)),
        Story(name: "P5: the stash itself",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall)),
                                                             .startPiP(call, trigger: .user), .openFullScreen(notes, trigger: .user),
                                                             .stashPiP(call)],
              app: call, facet: .pip, rule: "P5", event: .pipStashed(call)),
        Story(name: "C2.4: Split View without multitasking camera access", commands: running(scanner) + [.split(notes, side: .right)],
              app: scanner, facet: .session, rule: "C2.4",
              event: .sessionWasInterrupted(scanner, .videoDeviceNotAvailableWithMultipleForegroundApps)),
        Story(name: "C13: an ARKit session in Split View", commands: running(scanner, arKit: true) + [.split(notes, side: .right)],
              app: scanner, facet: .session, rule: "C13",
              event: .sessionWasInterrupted(scanner, .videoDeviceNotAvailableWithMultipleForegroundApps)),
        Story(name: "C2.5: pressure shutdown", commands: running(call) + [.setPressure(builtIn(ipad), .shutdown)],
              app: call, facet: .session, rule: "C2.5", event: .sessionWasInterrupted(call, .videoDeviceNotAvailableDueToSystemPressure)),
        Story(name: "A7: the recorder takes the microphone from the call's capture",
              commands: running(call, multitasking: true, audioInput: true) + [.split(recorder, side: .right), .activateAudioSession(recorder)],
              app: call, facet: .session, rule: "A7", event: .sessionWasInterrupted(call, .audioDeviceInUseByAnotherClient)),
        Story(name: "P3: PiP starts by itself when the call goes home",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall, canStartAutomaticallyFromInline: true)),
                                                             .goHome(device: ipad)],
              app: call, facet: .pip, rule: "P3", event: .pipDidStart(call, screen: ipad, frame: PolicyEngine.defaultPiPFrame)),
        Story(name: "P2: the user starts PiP",
              commands: running(call, multitasking: true) + [.setupPiP(call, PiPControllerSetup(kind: .videoCall)), .startPiP(call, trigger: .user)],
              app: call, facet: .pip, rule: "P2", event: .pipDidStart(call, screen: ipad, frame: PolicyEngine.defaultPiPFrame)),
        Story(name: "A3: a non-mixable activation interrupts the music",
              commands: [.openFullScreen(music, trigger: .user), .activateAudioSession(music), .openFullScreen(video, trigger: .user),
                         .activateAudioSession(video)],
              app: music, facet: .audio, rule: "A3", event: .audioInterruptionBegan(music, .default)),
    ]

    @Test(arguments: stories)
    func namesTheRule(_ story: Story) throws {
        var engine = PolicyEngine()
        var check = PolicyEngine()
        var ledger = DecisionLedger()
        let commands = [Command.registerNode(deviceRegistration(Self.ipad))] + story.commands
        for (index, command) in commands.enumerated() {
            let at = Instant(milliseconds: Int64(index) * 10)
            let decisions = try engine.decide(command, at: at).get()
            #expect(try check.apply(command, at: at).get() == decisions.map(\.event), "decide and apply agree on \(command)")
            ledger.record(sequence: UInt64(index + 1), command: command, decisions: decisions)
        }
        let cause = try #require(ledger.cause(of: story.facet, for: story.app))
        #expect(cause.decision.rule == story.rule)
        #expect(cause.decision.event == story.event)
        #expect(cause.sequence == UInt64(commands.count))
        #expect(cause.command == commands.last)
    }

    @Test("the grant names its rule: C1 for a free camera, C4 when it preempts the holder, C6 when it returns")
    func grantRules() throws {
        var engine = PolicyEngine()
        var at = Instant(milliseconds: 0)
        func grantRule(_ command: Command) throws -> RuleID? {
            at = Instant(milliseconds: at.milliseconds + 10)
            return try engine.decide(command, at: at).get().first { if case .cameraGranted = $0.event { true } else { false } }?.rule
        }
        _ = try grantRule(.registerNode(deviceRegistration(Self.ipad)))
        for command in Self.running(Self.call, multitasking: true).dropLast() + [.setupPiP(Self.call, PiPControllerSetup(kind: .videoCall))] {
            #expect(try grantRule(command) == nil)
        }
        #expect(try grantRule(.startSession(Self.call)) == "C1", "nobody held the camera")
        _ = try grantRule(.startPiP(Self.call, trigger: .user))
        #expect(try grantRule(.openFullScreen(Self.camera, trigger: .user)) == "C4", "Camera.app preempts the call in PiP")
        #expect(try grantRule(.stopSession(Self.camera)) == "C6", "the camera returns to the call")
    }

    @Test("C6's stack: the most recently preempted first, then the longest waiting")
    func waitersInReturnOrder() throws {
        var engine = PolicyEngine()
        let commands: [Command] = [.registerNode(deviceRegistration(Self.ipad))]
            + Self.running(Self.call, multitasking: true) + [.setupPiP(Self.call, PiPControllerSetup(kind: .videoCall)),
                                                            .startPiP(Self.call, trigger: .user)]
            + Self.running(Self.camera)
        for (index, command) in commands.enumerated() { _ = try engine.decide(command, at: Instant(milliseconds: Int64(index))).get() }
        #expect(engine.state.holder(of: builtIn(Self.ipad)) == Self.camera)
        #expect(engine.state.waiters(of: builtIn(Self.ipad)) == [Self.call])
        #expect(engine.state.returnOrder([Self.notes, Self.call]) == [Self.call, Self.notes], "preempted before never-preempted")
    }
}
