import Testing
@testable import CamsyncPolicy

/// P1–P9 (seeds 001, 003, 004).
@Suite struct PictureInPictureTests {
    let ipad: NodeID = "ipad"
    var video: AppID { .on(ipad, Apps.video) }
    var call: AppID { .on(ipad, Apps.call) }
    var notes: AppID { .on(ipad, Apps.notes) }

    struct P1Case: CustomTestStringConvertible, Sendable {
        var name: String
        var pipSupported = true
        var app: AppSpec
        var contentSource = true
        var failure: PiPFailureReason
        var testDescription: String { name }
    }

    /// P1 — seeds 001, 003, 004: every condition of "PiP possible", each refused with its failedToStart reason.
    @Test(arguments: [
        P1Case(name: "P1 missing background mode", app: Apps.notes, failure: .missingBackgroundMode),
        P1Case(name: "P1 audio category soloAmbient",
               app: AppSpec(bundleID: "com.example.mute", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .soloAmbient),
               failure: .audioSessionCategory),
        P1Case(name: "P1 no content source", app: Apps.video, contentSource: false, failure: .noContentSource),
    ])
    func p1_pipNotPossible(_ c: P1Case) {
        var h = Harness()
        var apps = Apps.all
        if !apps.contains(c.app) { apps.append(c.app) }
        h.ok(.registerNode(deviceRegistration(ipad, apps: apps)))
        let app = AppID.on(ipad, c.app)
        h.ok(.openFullScreen(app, trigger: .user))
        h.ok(.setupPiP(app, PiPControllerSetup(kind: .playback, hasContentSource: c.contentSource)))
        let rejection = h.reject(.startPiP(app, trigger: .user))
        #expect(rejection?.code == .pipNotPossible)
        #expect(rejection?.pipFailure == c.failure)
    }

    /// P1 — seed 001: where the device does not support PiP, no controller can be made and no start succeeds.
    @Test func p1_deviceWithoutPiP() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, pip: false)))
        h.ok(.openFullScreen(video, trigger: .user))
        #expect(h.reject(.setupPiP(video, PiPControllerSetup(kind: .playback)))?.pipFailure == .deviceUnsupported)
        #expect(h.reject(.startPiP(video, trigger: .user))?.pipFailure == .noController)
    }

    /// P2 — seed 004: a programmatic start is refused; a start needs the app visible.
    @Test func p2_programmaticStartRefused_andNeedsVisibility() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        let programmatic = h.reject(.startPiP(video, trigger: .programmatic))
        #expect(programmatic?.code == .pipProgrammaticStart)
        #expect(programmatic?.pipFailure == .programmaticStart)
        h.ok(.goHome(device: ipad))  // no automatic start: neither fills the window nor inline
        #expect(h.reject(.startPiP(video, trigger: .user))?.pipFailure == .notVisible)
        h.ok(.openFullScreen(video, trigger: .user))
        let start = h.ok(.startPiP(video, trigger: .user))
        #expect(start.contains(.pipDidStart(video, screen: ipad, frame: PolicyEngine.defaultPiPFrame)))
        #expect(h.state.apps[video]?.role == .backgroundMedia)
    }

    /// P3 — seeds 001, 003, 004: automatic start on home gesture, another app opened, notification tapped —
    /// unless the user turned it off.
    @Test(arguments: [("home", true), ("other", true), ("notification", true), ("home", false)])
    func p3_automaticStart(_ way: String, _ autoPiP: Bool) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        if !autoPiP { h.ok(.setAutoPiP(device: ipad, enabled: false)) }
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback, canStartAutomaticallyFromInline: true)))
        switch way {
        case "home": h.ok(.goHome(device: ipad))
        case "other": h.ok(.openFullScreen(notes, trigger: .user))
        default: h.ok(.openFullScreen(notes, trigger: .notification))
        }
        #expect(h.state.apps[video]?.hasActivePiP == autoPiP)
    }

    /// P4 — one PiP window per device: a new start suspends the active one; when it stops, the most recently
    /// suspended resumes. A video-call PiP blocks others.
    @Test func p4_onePiPWindowPerDevice() {
        var h = Harness()
        let other = AppSpec(bundleID: "com.example.tv", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playback)
        h.ok(.registerNode(deviceRegistration(ipad, apps: Apps.all + [other])))
        let tv = AppID.on(ipad, other)
        for app in [video, tv] {
            h.ok(.openFullScreen(app, trigger: .user))
            h.ok(.setupPiP(app, PiPControllerSetup(kind: .playback)))
            h.ok(.startPiP(app, trigger: .user))
        }
        #expect(h.state.apps[video]?.pip?.window == .suspended)
        #expect(h.log.contains(.pipSuspended(video)))
        let close = h.ok(.closePiP(tv))
        #expect(close == [.pipDidStop(tv), .pipResumed(video), .roleChanged(tv, .background), .roleChanged(video, .backgroundMedia)])
        // A video call's PiP makes other PiP impossible.
        h.ok(.openFullScreen(call, trigger: .user))
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        h.ok(.startPiP(call, trigger: .user))
        h.ok(.openFullScreen(tv, trigger: .user))
        #expect(h.reject(.startPiP(tv, trigger: .user))?.pipFailure == .videoCallActive)
    }

    /// P5 — seed 001: stashing a video-call PiP interrupts its session with reason 1; unstashing ends it.
    @Test func p5_stashInterruptsVideoCall() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(call, multitasking: true)
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        h.ok(.startPiP(call, trigger: .user))
        let stash = h.ok(.stashPiP(call))
        #expect(stash.contains(.sessionWasInterrupted(call, .videoDeviceNotAvailableInBackground)))
        let unstash = h.ok(.unstashPiP(call))
        #expect(unstash.contains(.sessionInterruptionEnded(call)))
    }

    /// P6 — seed 003: restore in time animates back; late or at the deadline it just disappears.
    @Test(arguments: [(Int64(500), true), (Int64(5_000), false)])
    func p6_restore(_ after: Int64, _ restored: Bool) {
        var h = Harness(settings: PolicySettings(pipRestoreDeadlineMilliseconds: 2_000))
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        h.ok(.startPiP(video, trigger: .user))
        let restore = h.ok(.restorePiP(video))
        #expect(restore.contains(.pipRestoreUserInterface(video)))
        #expect(h.state.apps[video]?.scene == .fullScreen)
        let deadline = h.state.apps[video]?.pip?.restoreDeadline
        #expect(h.engine.nextDeadline()?.0 == deadline)
        #expect(h.engine.nextDeadline()?.1 == .pipRestoreDeadlinePassed(video))
        #expect(h.reject(.pipRestoreDeadlinePassed(video))?.code == .illegalState)  // too early
        h.advance(milliseconds: after)
        let done = h.ok(.completePiPRestore(video))
        #expect(done == [.pipRestoreFinished(video, restored: restored), .pipDidStop(video)])
        #expect(h.engine.nextDeadline() == nil)
    }

    @Test func p6_deadlinePassedCommand() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        h.ok(.startPiP(video, trigger: .user))
        h.ok(.restorePiP(video))
        h.advance(milliseconds: h.engine.settings.pipRestoreDeadlineMilliseconds)
        #expect(h.ok(.pipRestoreDeadlinePassed(video)) == [.pipRestoreFinished(video, restored: false), .pipDidStop(video)])
        #expect(h.ok(.pipRestoreDeadlinePassed(video)).isEmpty)  // K5: retry is a no-op
    }

    /// P7 — seeds 001, 003: releasing the controller or clearing the content source while active closes with a warning.
    @Test(arguments: [true, false])
    func p7_releaseOrClearWhileActiveWarns(_ release: Bool) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        h.ok(.startPiP(video, trigger: .user))
        let events = h.ok(release ? .releasePiP(video) : .setPiPContentSource(video, present: false))
        #expect(events.contains(.warning(video, release ? .pipControllerReleasedWhileActive : .pipContentSourceClearedWhileActive)))
        #expect(events.contains(.pipDidStop(video)))
        #expect(h.state.apps[video]?.hasActivePiP == false)
    }

    /// P8 — design card "PiP-window state": the window's frame and screen, on the device or an attached display.
    @Test func p8_moveWindowAcrossScreens() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(displayRegistration("tv", attachedTo: ipad)))
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback)))
        h.ok(.startPiP(video, trigger: .user))
        let frame = Frame(x: 100, y: 50, width: 480, height: 270)
        #expect(h.ok(.movePiP(video, screen: "tv", frame: frame)) == [.pipMoved(video, screen: "tv", frame: frame)])
        #expect(h.reject(.movePiP(video, screen: "tv", frame: Frame(x: 0, y: 0, width: 0, height: 10)))?.code == .invalidArgument)
        let death = h.ok(.declareNodeDead("tv"))  // K1: the window returns to the device screen
        #expect(death.contains(.pipMoved(video, screen: ipad, frame: frame)))
    }

    /// P9 — seeds 003, 004: a backgroundMedia app above its memory limit is terminated; its PiP stops and its camera is released.
    @Test func p9_backgroundMediaMemoryLimit() {
        var h = Harness(settings: PolicySettings(backgroundMediaMemoryLimitMB: 150))
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(call, multitasking: true)
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        h.ok(.reportMemory(call, megabytes: 300))  // full screen: no limit
        #expect(h.state.apps[call]?.scene == .fullScreen)
        let events = h.ok(.startPiP(call, trigger: .user))
        #expect(events.contains(.appTerminated(call, .memoryLimit)))
        #expect(events.contains(.pipDidStop(call)))
        #expect(events.contains(.cameraReleased(builtIn(ipad), call)))
        #expect(h.state.holder(of: builtIn(ipad)) == nil)
    }
}
