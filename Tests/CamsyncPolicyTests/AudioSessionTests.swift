import Testing
@testable import CamsyncPolicy

/// A1–A8 (seed 003 "Multitasking Essentials for Media-Based Apps"): audio sessions per device.
@Suite struct AudioSessionTests {
    static let ipad: NodeID = "ipad"
    var music: AppID { .on(Self.ipad, Apps.music) }
    var game: AppID { .on(Self.ipad, Apps.game) }
    var call: AppID { .on(Self.ipad, Apps.call) }
    var recorder: AppID { .on(Self.ipad, Apps.recorder) }
    var notes: AppID { .on(Self.ipad, Apps.notes) }
    var scanner: AppID { .on(Self.ipad, Apps.scanner) }

    /// Two plain apps with the audio background mode, whose category each case sets (A1–A5 tables).
    static let first = AppSpec(bundleID: "com.example.first", backgroundModeAudioAirPlayPiP: true)
    static let second = AppSpec(bundleID: "com.example.second", backgroundModeAudioAirPlayPiP: true)

    static func device() -> Harness {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, apps: Apps.all + [first, second])))
        return h
    }

    func audio(_ h: Harness, _ app: AppID) -> AudioSessionRecord { h.state.apps[app]!.audioSession }

    // MARK: A1

    struct OptionsCase: CustomTestStringConvertible, Sendable {
        var configuration: AudioSessionConfiguration
        var testDescription: String { configuration.description }
    }

    static let everyPair: [OptionsCase] = AudioSessionCategory.allCases.flatMap { category in
        [(false, false), (true, false), (false, true), (true, true)].map {
            OptionsCase(configuration: AudioSessionConfiguration(category: category, mixWithOthers: $0.0, duckOthers: $0.1))
        }
    }

    /// A1: every category × option pair — `mixWithOthers` / `duckOthers` only with playback and
    /// playAndRecord (refused otherwise, state unchanged); `duckOthers` sets `mixWithOthers`;
    /// mixable exactly when ambient or mixWithOthers.
    @Test(arguments: everyPair)
    func a1_categoryAndOptions(_ c: OptionsCase) {
        var h = Self.device()
        let app = AppID.on(Self.ipad, Self.first)
        h.ok(.openFullScreen(app, trigger: .user))
        let possible = !(c.configuration.mixWithOthers || c.configuration.duckOthers)
            || c.configuration.category == .playback || c.configuration.category == .playAndRecord
        if possible {
            let events = h.ok(.setAudioCategory(app, c.configuration))
            let kept = audio(h, app).configuration
            #expect(kept.category == c.configuration.category && kept.duckOthers == c.configuration.duckOthers)
            #expect(kept.mixWithOthers == (c.configuration.mixWithOthers || c.configuration.duckOthers))
            #expect(kept.isMixable == (kept.category == .ambient || kept.mixWithOthers))
            let changed = kept != AudioSessionConfiguration(category: Self.first.audioSessionCategory)
            #expect(events == (changed ? [.audioSessionConfigured(app, kept)] : []))
        } else {
            let rejection = h.reject(.setAudioCategory(app, c.configuration))
            #expect(rejection?.code == .incompatibleCategoryOptions)
            #expect(rejection?.message.contains("A1") == true)
        }
    }

    /// A1 — seed 003 "never change your audio configuration based on how your app is presented":
    /// split, Slide Over, Stage Manager, PiP and background leave category, options and activation alone.
    @Test func a1_layoutNeverChangesTheAudioConfiguration() {
        var h = Self.device()
        let video = AppID.on(Self.ipad, Apps.video)
        let playing = AudioSessionConfiguration(category: .playback, mixWithOthers: true)
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setAudioCategory(video, playing))
        h.ok(.activateAudioSession(video))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        let steps: [Command] = [
            .split(notes, side: .right), .slideOver(game), .openFullScreen(notes, trigger: .user), .openFullScreen(video, trigger: .user),
            .setStageManager(device: Self.ipad, enabled: true), .setStageManager(device: Self.ipad, enabled: false),
            .openFullScreen(video, trigger: .user), .startPiP(video, trigger: .user), .stashPiP(video), .unstashPiP(video),
            .restorePiP(video), .goHome(device: Self.ipad),
        ]
        for step in steps {
            let events = h.ok(step)
            #expect(audio(h, video).configuration == playing, "\(step)")
            #expect(audio(h, video).isActive, "\(step)")
            #expect(!events.contains { if case .audioInterruptionBegan = $0 { true } else { false } }, "\(step)")
        }
    }

    // MARK: A2

    /// A2 — seed 003 "only activate your audio session when audio is first needed": launching or
    /// showing an app never activates its session; the app's own activation does.
    @Test func a2_activationIsTheAppsOwnAction() {
        var h = Self.device()
        let open = h.ok(.openFullScreen(music, trigger: .user))
        #expect(!audio(h, music).isActive)
        #expect(!open.contains { if case .audioSessionActivated = $0 { true } else { false } })
        #expect(h.ok(.activateAudioSession(music)) == [.audioSessionActivated(music)])
        #expect(audio(h, music).isActive)
        #expect(h.ok(.activateAudioSession(music)).isEmpty, "activating twice is a no-op")
        #expect(h.ok(.deactivateAudioSession(music)) == [.audioSessionDeactivated(music)])
        #expect(h.ok(.deactivateAudioSession(music)).isEmpty, "deactivating twice is a no-op")
    }

    struct BackgroundStartCase: CustomTestStringConvertible, Sendable {
        var name: String
        var spec: AppSpec
        var configuration: AudioSessionConfiguration
        /// nil: accepted.
        var refusal: Rejection.Code?
        var testDescription: String { name }
    }

    /// A2, A8: starting audio while off screen.
    @Test(arguments: [
        BackgroundStartCase(name: "A2 non-mixable playback from background → cannotInterruptOthers", spec: Apps.music,
                            configuration: .init(category: .playback), refusal: .cannotInterruptOthers),
        BackgroundStartCase(name: "A2 non-mixable playAndRecord from background → cannotInterruptOthers", spec: Apps.call,
                            configuration: .init(category: .playAndRecord), refusal: .cannotInterruptOthers),
        BackgroundStartCase(name: "A2 mixable playback with the background mode → accepted", spec: Apps.music,
                            configuration: .init(category: .playback, mixWithOthers: true), refusal: nil),
        BackgroundStartCase(name: "A8 ambient from background → cannotStartPlaying", spec: Apps.game,
                            configuration: .init(category: .ambient), refusal: .cannotStartPlaying),
        BackgroundStartCase(name: "A8 mixable playback without the background mode → cannotStartPlaying", spec: Apps.notes,
                            configuration: .init(category: .playback, mixWithOthers: true), refusal: .cannotStartPlaying),
    ])
    func a2_a8_activationFromBackground(_ c: BackgroundStartCase) {
        var h = Self.device()
        let app = AppID.on(Self.ipad, c.spec)
        h.ok(.openFullScreen(app, trigger: .user))
        h.ok(.setAudioCategory(app, c.configuration))
        h.ok(.goHome(device: Self.ipad))
        if let refusal = c.refusal {
            let rejection = h.reject(.activateAudioSession(app))
            #expect(rejection?.code == refusal)
            #expect(rejection?.message.isEmpty == false)
        } else {
            h.ok(.activateAudioSession(app))
            #expect(audio(h, app).isActive)
            #expect(h.state.computedRole(of: app) == .backgroundMedia)
        }
    }

    /// A2 ("not already playing background audio under A8"): a session playing in background may
    /// become non-mixable; one that is not playing may not start non-mixable.
    @Test func a2_backgroundPlayerMayBecomeNonMixable() {
        var h = Self.device()
        h.ok(.openFullScreen(music, trigger: .user))
        h.ok(.setAudioCategory(music, .init(category: .playback, mixWithOthers: true)))
        h.ok(.activateAudioSession(music))
        h.ok(.goHome(device: Self.ipad))
        h.ok(.setAudioCategory(music, .init(category: .playback)))
        #expect(audio(h, music).isActive && !audio(h, music).configuration.isMixable)
        #expect(h.reject(.setAudioCategory(music, .init(category: .ambient)))?.code == .cannotStartPlaying)
    }

    // MARK: A3, A4, A5 — category × options × activation order

    static let everyConfiguration: [AudioSessionConfiguration] = [
        .init(category: .playback), .init(category: .playback, mixWithOthers: true),
        .init(category: .playback, mixWithOthers: true, duckOthers: true),
        .init(category: .playAndRecord), .init(category: .playAndRecord, mixWithOthers: true),
        .init(category: .playAndRecord, mixWithOthers: true, duckOthers: true),
        .init(category: .ambient), .init(category: .soloAmbient), .init(category: .record),
    ]

    struct OrderCase: CustomTestStringConvertible, Sendable {
        var earlier: AudioSessionConfiguration
        var later: AudioSessionConfiguration
        var testDescription: String { "\(earlier) then \(later)" }
    }

    static let everyOrder: [OrderCase] = everyConfiguration.flatMap { a in everyConfiguration.map { OrderCase(earlier: a, later: $0) } }

    /// A3, A4, A5: two visible apps activate in turn. The later activation interrupts the earlier
    /// session exactly when both are non-mixable; ducking and the silence hint follow.
    @Test(arguments: everyOrder)
    func a3_a4_a5_activationOrder(_ c: OrderCase) {
        var h = Self.device()
        let earlier = AppID.on(Self.ipad, Self.first), later = AppID.on(Self.ipad, Self.second)
        h.ok(.openFullScreen(earlier, trigger: .user))
        h.ok(.split(later, side: .right))
        h.ok(.setAudioCategory(earlier, c.earlier))
        h.ok(.setAudioCategory(later, c.later))
        let first = h.ok(.activateAudioSession(earlier))
        #expect(first.contains(.secondaryAudioSilenceHintBegan(later)) == !c.earlier.isMixable)
        let events = h.ok(.activateAudioSession(later))
        let interrupted = !c.earlier.isMixable && !c.later.isMixable
        #expect(audio(h, earlier).isActive == !interrupted)
        #expect(audio(h, later).isActive)
        #expect(events.contains(.audioInterruptionBegan(earlier, .default)) == interrupted)
        #expect(audio(h, earlier).interruptedBy == (interrupted ? later : nil))
        // A5: each app's hint is true while the other app's non-mixable session is active.
        #expect(audio(h, earlier).secondaryAudioShouldBeSilencedHint == !c.later.isMixable)
        #expect(audio(h, later).secondaryAudioShouldBeSilencedHint == (!c.earlier.isMixable && !interrupted))
        // A4: an active mixable session is ducked by the other's active duckOthers session.
        let earlierDucked = !interrupted && c.earlier.isMixable && c.later.duckOthers
        let laterDucked = c.later.isMixable && c.earlier.duckOthers
        #expect(audio(h, earlier).isDucked == earlierDucked)
        #expect(audio(h, later).isDucked == laterDucked)
        #expect(events.contains(.audioDuckingBegan(earlier)) == earlierDucked)
        // A6: deactivating the later session ends the interruption it caused, and undoes A4 / A5.
        let end = h.ok(.deactivateAudioSession(later))
        #expect(end.contains(.audioInterruptionEnded(earlier, shouldResume: true)) == interrupted)
        #expect(!audio(h, earlier).isActive == interrupted, "A6: it reactivates only by its own action")
        #expect(end.contains(.audioDuckingEnded(earlier)) == earlierDucked)
        #expect(end.contains(.secondaryAudioSilenceHintEnded(earlier)) == !c.later.isMixable)
        #expect(!audio(h, earlier).isDucked && !audio(h, earlier).secondaryAudioShouldBeSilencedHint)
    }

    /// A3 — seed 003: an ambient game mixes with music and is never interrupted by it.
    /// A5 — the game's secondary soundtrack hint begins with the music and ends with it.
    @Test func a3_a5_gameMixesWithMusicAndSilencesItsSoundtrack() {
        var h = Self.device()
        h.ok(.openFullScreen(music, trigger: .user))
        h.ok(.activateAudioSession(music))
        h.ok(.goHome(device: Self.ipad))
        #expect(h.state.computedRole(of: music) == .backgroundMedia, "A8")
        let launch = h.ok(.openFullScreen(game, trigger: .user))
        #expect(launch.contains(.secondaryAudioSilenceHintBegan(game)), "A5: the hint is true from launch")
        let play = h.ok(.activateAudioSession(game))
        #expect(play == [.audioSessionActivated(game)], "A3: mixable activations interrupt nobody")
        #expect(audio(h, music).isActive && audio(h, game).isActive)
        #expect(h.ok(.deactivateAudioSession(music)).contains(.secondaryAudioSilenceHintEnded(game)))
        #expect(!audio(h, game).secondaryAudioShouldBeSilencedHint)
    }

    /// A4 — seed 003 "ducks": a navigation-style duckOthers session lowers the game while it plays.
    @Test func a4_duckOthersDucksMixableSessions() {
        var h = Self.device()
        h.ok(.openFullScreen(game, trigger: .user))
        h.ok(.activateAudioSession(game))
        h.ok(.split(music, side: .right))
        h.ok(.setAudioCategory(music, .init(category: .playback, duckOthers: true)))
        #expect(audio(h, music).configuration.mixWithOthers, "duckOthers implies mixWithOthers")
        #expect(h.ok(.activateAudioSession(music)) == [.audioSessionActivated(music), .audioDuckingBegan(game)])
        #expect(audio(h, game).isDucked && !audio(h, music).isDucked)
        #expect(h.ok(.deactivateAudioSession(music)) == [.audioSessionDeactivated(music), .audioDuckingEnded(game)])
    }

    // MARK: A6

    struct EndCase: CustomTestStringConvertible, Sendable {
        var name: String
        var end: [Command]
        var testDescription: String { name }
    }

    /// A6: however the interrupting session ends — deactivation, termination, becoming mixable,
    /// or A8 suspension when its app leaves the screen — the interrupted session gets
    /// `audioInterruptionEnded(shouldResume: true)` and stays inactive.
    @Test(arguments: [
        EndCase(name: "deactivates", end: [.deactivateAudioSession(.on(ipad, first))]),
        EndCase(name: "terminates", end: [.terminate(.on(ipad, first))]),
        EndCase(name: "becomes mixable", end: [.setAudioCategory(.on(ipad, first), .init(category: .playback, mixWithOthers: true))]),
        EndCase(name: "is suspended in background (A8)",
                end: [.setAudioCategory(.on(ipad, first), .init(category: .soloAmbient)), .goHome(device: ipad)]),
    ])
    func a6_interruptionEndsWithShouldResume(_ c: EndCase) {
        var h = Self.device()
        let interrupter = AppID.on(Self.ipad, Self.first)
        h.ok(.openFullScreen(music, trigger: .user))
        h.ok(.activateAudioSession(music))
        h.ok(.openFullScreen(interrupter, trigger: .user))
        h.ok(.setAudioCategory(interrupter, .init(category: .playback)))
        #expect(h.ok(.activateAudioSession(interrupter)).contains(.audioInterruptionBegan(music, .default)))
        #expect(!audio(h, music).isActive, "A3")
        var events: [Event] = []
        for command in c.end { events += h.ok(command) }
        #expect(events.filter { if case .audioInterruptionEnded = $0 { true } else { false } } == [.audioInterruptionEnded(music, shouldResume: true)])
        #expect(!audio(h, music).isActive && audio(h, music).interruptedBy == nil)
    }

    /// A6 [policy]: when the interrupter is itself interrupted, its waiting sessions wait for the
    /// new one; all of them get the end when the audio is free.
    @Test func a6_chainedInterruptionsEndTogether() {
        var h = Self.device()
        h.ok(.openFullScreen(music, trigger: .user))
        h.ok(.activateAudioSession(music))
        h.ok(.openFullScreen(call, trigger: .user))
        h.ok(.activateAudioSession(call))
        h.ok(.split(recorder, side: .right))
        let record = h.ok(.activateAudioSession(recorder))
        #expect(record.contains(.audioInterruptionBegan(call, .default)))
        #expect(audio(h, music).interruptedBy == recorder && audio(h, call).interruptedBy == recorder)
        let free = h.ok(.deactivateAudioSession(recorder))
        #expect(free.contains(.audioInterruptionEnded(music, shouldResume: true)))
        #expect(free.contains(.audioInterruptionEnded(call, shouldResume: true)))
        // Reactivating by its own action: the app interrupts nobody twice and waits for nothing.
        h.ok(.activateAudioSession(call))
        #expect(audio(h, call).interruptedBy == nil && !audio(h, music).isActive)
    }

    // MARK: A7

    /// A7 — reason 2 at last: a capture session with audio input is interrupted with
    /// `audioDeviceInUseByAnotherClient` while another app's record / playAndRecord non-mixable
    /// session holds the microphone, and resumes under C6 when it is released.
    @Test func a7_microphoneHolderInterruptsCaptureWithReason2() {
        var h = Self.device()
        h.ok(.openFullScreen(scanner, trigger: .user))
        h.ok(.configureSession(scanner, SessionConfiguration(camera: front(Self.ipad), multitaskingCameraAccessEnabled: true, audioInput: true)))
        h.ok(.startSession(scanner))
        #expect(h.session(scanner) == .running)
        h.ok(.split(recorder, side: .right))
        let take = h.ok(.activateAudioSession(recorder))
        #expect(take.contains(.sessionWasInterrupted(scanner, .audioDeviceInUseByAnotherClient)))
        #expect(take.contains(.cameraReleased(builtIn(Self.ipad), scanner)))
        #expect(h.session(scanner) == .interrupted(.audioDeviceInUseByAnotherClient))
        #expect(h.state.microphoneHolder(device: Self.ipad) == recorder)
        let release = h.ok(.deactivateAudioSession(recorder))
        #expect(release.contains(.sessionInterruptionEnded(scanner)))
        #expect(grants(release).map(\.1) == [scanner])
        #expect(h.session(scanner) == .running)
    }

    struct MicrophoneCase: CustomTestStringConvertible, Sendable {
        var name: String
        var holder: AudioSessionConfiguration
        var audioInput: Bool
        var multitaskingAccess: Bool
        var pressure: SystemPressureLevel
        var expected: SessionState
        var testDescription: String { name }
    }

    /// A7 and C2's order: after step 4 (reason 4 wins), before step 5 (reason 2 wins over 5);
    /// only non-mixable record / playAndRecord sessions hold the microphone; only sessions with
    /// audio input wait for it.
    @Test(arguments: [
        MicrophoneCase(name: "record holds the microphone → 2", holder: .init(category: .record), audioInput: true,
                       multitaskingAccess: true, pressure: .nominal, expected: .interrupted(.audioDeviceInUseByAnotherClient)),
        MicrophoneCase(name: "playAndRecord holds the microphone → 2", holder: .init(category: .playAndRecord), audioInput: true,
                       multitaskingAccess: true, pressure: .nominal, expected: .interrupted(.audioDeviceInUseByAnotherClient)),
        MicrophoneCase(name: "mixable playAndRecord does not hold it → runs",
                       holder: .init(category: .playAndRecord, mixWithOthers: true), audioInput: true,
                       multitaskingAccess: true, pressure: .nominal, expected: .running),
        MicrophoneCase(name: "playback does not use the microphone → runs", holder: .init(category: .playback), audioInput: true,
                       multitaskingAccess: true, pressure: .nominal, expected: .running),
        MicrophoneCase(name: "no audio input → runs", holder: .init(category: .record), audioInput: false,
                       multitaskingAccess: true, pressure: .nominal, expected: .running),
        MicrophoneCase(name: "C2.4 comes first → 4", holder: .init(category: .record), audioInput: true,
                       multitaskingAccess: false, pressure: .nominal,
                       expected: .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps)),
        MicrophoneCase(name: "A7 before C2.5 → 2", holder: .init(category: .record), audioInput: true,
                       multitaskingAccess: true, pressure: .shutdown, expected: .interrupted(.audioDeviceInUseByAnotherClient)),
    ])
    func a7_orderAndWhoHoldsTheMicrophone(_ c: MicrophoneCase) {
        var h = Self.device()
        let holder = AppID.on(Self.ipad, Self.first)
        h.ok(.openFullScreen(scanner, trigger: .user))
        h.ok(.configureSession(scanner, SessionConfiguration(camera: front(Self.ipad), multitaskingCameraAccessEnabled: c.multitaskingAccess,
                                                             audioInput: c.audioInput)))
        h.ok(.startSession(scanner))
        h.ok(.split(holder, side: .right))
        h.ok(.setAudioCategory(holder, c.holder))
        h.ok(.activateAudioSession(holder))
        h.ok(.setPressure(builtIn(Self.ipad), c.pressure))
        #expect(h.session(scanner) == c.expected)
        #expect(h.state.eligibilityReason(app: scanner) == (c.expected == .running ? nil : {
            if case .interrupted(let reason) = c.expected { reason } else { nil }
        }()))
    }

    /// A7 with A8: a call (playAndRecord, audio background mode) keeps the microphone in
    /// background, so a camera app with audio input opened full screen waits with reason 2 until
    /// the call ends.
    @Test func a7_a8_backgroundCallKeepsTheMicrophone() {
        var h = Self.device()
        h.ok(.openFullScreen(call, trigger: .user))
        h.ok(.activateAudioSession(call))
        h.ok(.openFullScreen(scanner, trigger: .user))
        #expect(audio(h, call).isActive && h.state.computedRole(of: call) == .backgroundMedia)
        h.ok(.configureSession(scanner, SessionConfiguration(camera: front(Self.ipad), audioInput: true)))
        let start = h.ok(.startSession(scanner))
        #expect(start == [.sessionWasInterrupted(scanner, .audioDeviceInUseByAnotherClient)])
        let stop = h.ok(.terminate(call))
        #expect(stop.contains(.sessionInterruptionEnded(scanner)), "C6: it resumes without restarting")
        #expect(h.session(scanner) == .running)
    }

    // MARK: A8

    struct BackgroundCase: CustomTestStringConvertible, Sendable {
        var spec: AppSpec
        var configuration: AudioSessionConfiguration
        var keeps: Bool
        var testDescription: String {
            "\(spec.bundleID) \(configuration) background mode \(spec.backgroundModeAudioAirPlayPiP) → \(keeps ? "keeps" : "suspended")"
        }
    }

    /// A8: leaving the screen keeps the session only with the background mode and a playback /
    /// playAndRecord category — then the app is backgroundMedia (L5); else `appWasSuspended`.
    @Test(arguments: [
        BackgroundCase(spec: Apps.music, configuration: .init(category: .playback), keeps: true),
        BackgroundCase(spec: Apps.music, configuration: .init(category: .playAndRecord, mixWithOthers: true), keeps: true),
        BackgroundCase(spec: Apps.music, configuration: .init(category: .ambient), keeps: false),
        BackgroundCase(spec: Apps.music, configuration: .init(category: .soloAmbient), keeps: false),
        BackgroundCase(spec: Apps.recorder, configuration: .init(category: .record), keeps: false),
        BackgroundCase(spec: Apps.notes, configuration: .init(category: .playback), keeps: false),
        BackgroundCase(spec: Apps.game, configuration: .init(category: .ambient), keeps: false),
    ])
    func a8_backgroundAudio(_ c: BackgroundCase) {
        var h = Self.device()
        let app = AppID.on(Self.ipad, c.spec)
        h.ok(.openFullScreen(app, trigger: .user))
        h.ok(.setAudioCategory(app, c.configuration))
        h.ok(.activateAudioSession(app))
        let home = h.ok(.goHome(device: Self.ipad))
        #expect(audio(h, app).isActive == c.keeps)
        #expect(home.contains(.audioInterruptionBegan(app, .appWasSuspended)) == !c.keeps)
        #expect(h.state.computedRole(of: app) == (c.keeps ? .backgroundMedia : .background))
        #expect(audio(h, app).configuration == c.configuration.normalized, "A1: the configuration stays")
    }

    /// A8, P9: a background audio app is backgroundMedia with the lower memory limit; above it the
    /// app is terminated, and the session it interrupted gets its end (A6).
    @Test func a8_p9_backgroundAudioAppHasTheLowerMemoryLimit() {
        var h = Self.device()
        h.ok(.openFullScreen(game, trigger: .user))
        h.ok(.split(music, side: .right))
        h.ok(.setAudioCategory(game, .init(category: .soloAmbient)))
        h.ok(.activateAudioSession(game))
        h.ok(.activateAudioSession(music))
        h.ok(.sendToBackground(music, cause: .homeGesture))
        #expect(h.state.computedRole(of: music) == .backgroundMedia)
        h.ok(.reportMemory(music, megabytes: 150))
        let over = h.ok(.reportMemory(music, megabytes: 250))
        #expect(over.contains(.appTerminated(music, .memoryLimit)))
        #expect(over.contains(.audioInterruptionEnded(game, shouldResume: true)))
        #expect(audio(h, music) == AudioSessionRecord(declared: .playback), "a terminated app's session starts over")
    }

    /// P1 reads the app's audio session: a video player that set ambient cannot start PiP.
    @Test func p1_pipReadsTheSessionsCategory() {
        var h = Self.device()
        let video = AppID.on(Self.ipad, Apps.video)
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        h.ok(.setAudioCategory(video, .init(category: .ambient)))
        #expect(h.reject(.startPiP(video, trigger: .user))?.pipFailure == .audioSessionCategory)
    }

    // MARK: Bad input

    struct BadInputCase: CustomTestStringConvertible, Sendable {
        var name: String
        var command: Command
        var code: Rejection.Code
        var testDescription: String { name }
    }

    /// Refusals carry a code and a message and change nothing (`Harness.reject` checks state).
    @Test(arguments: [
        BadInputCase(name: "unknown app", command: .activateAudioSession(AppID(device: ipad, bundleID: "com.example.nope")), code: .unknownApp),
        BadInputCase(name: "unknown device", command: .deactivateAudioSession(AppID(device: "nope", bundleID: "x")), code: .unknownNode),
        BadInputCase(name: "A1 record + mixWithOthers", command: .setAudioCategory(.on(ipad, Apps.recorder), .init(category: .record, mixWithOthers: true)),
                     code: .incompatibleCategoryOptions),
        BadInputCase(name: "A1 ambient + duckOthers", command: .setAudioCategory(.on(ipad, Apps.recorder), .init(category: .ambient, duckOthers: true)),
                     code: .incompatibleCategoryOptions),
        BadInputCase(name: "A2 non-mixable from background", command: .activateAudioSession(.on(ipad, Apps.music)), code: .cannotInterruptOthers),
        BadInputCase(name: "not running", command: .activateAudioSession(.on(ipad, Apps.video)), code: .illegalState),
    ])
    func badInputIsRefused(_ c: BadInputCase) {
        var h = Self.device()
        h.ok(.openFullScreen(.on(Self.ipad, Apps.music), trigger: .user))
        h.ok(.openFullScreen(.on(Self.ipad, Apps.recorder), trigger: .user))
        let rejection = h.reject(c.command)
        #expect(rejection?.code == c.code)
        #expect(rejection?.message.isEmpty == false)
    }
}
