import Testing
@testable import CamsyncPolicy

/// C1–C10 (seeds 000, 001, 002, 003).
@Suite struct CameraArbitrationTests {
    let ipad: NodeID = "ipad"
    var call: AppID { .on(ipad, Apps.call) }
    var camera: AppID { .on(ipad, Apps.camera) }
    var notes: AppID { .on(ipad, Apps.notes) }

    /// C1, C3, C4, C6, C7, C8, L6, P3 — seed 001: a video call in PiP with multitasking camera
    /// access keeps the camera; Camera.app assumes control when opened (reason 3); the call's
    /// interruption ends when Camera.app finishes.
    @Test func c4_c6_videoCallInPiPHoldsCamera_cameraAppTakesControl_andReturnsIt() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(call, multitasking: true)
        #expect(h.session(call) == .running)
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall, canStartAutomaticallyFromInline: true)))
        // P3: another app opened → the call goes to PiP by itself; L6: notes + PiP = multitasking.
        let toPiP = h.ok(.openFullScreen(notes, trigger: .user))
        #expect(toPiP.contains(.pipDidStart(call, screen: ipad, frame: PolicyEngine.defaultPiPFrame)))
        #expect(h.state.isMultitasking(device: ipad))
        #expect(h.session(call) == .running)
        #expect(h.state.holder(of: builtIn(ipad)) == call)
        #expect(h.state.computedRole(of: call) == .backgroundMedia)

        // Camera.app opens → C4 preemption; the call waits with videoDeviceInUseByAnotherClient (3).
        let open = h.ok(.openFullScreen(camera, trigger: .user))
        #expect(open.contains(.sessionWasInterrupted(call, .videoDeviceInUseByAnotherClient)))
        #expect(open.contains(.cameraReleased(builtIn(ipad), call)))
        #expect(open.contains(.cameraGranted(builtIn(ipad), camera, GrantToken(2))))
        #expect(open.contains(.sessionStarted(camera)))
        #expect(h.session(call) == .interrupted(.videoDeviceInUseByAnotherClient))

        // Camera.app closes (home gesture) → C6: the camera returns to the call, interruptionEnded.
        let close = h.ok(.goHome(device: ipad))
        #expect(close.contains(.sessionWasInterrupted(camera, .videoDeviceNotAvailableInBackground)))
        #expect(close.contains(.sessionInterruptionEnded(call)))
        #expect(close.contains(.cameraGranted(builtIn(ipad), call, GrantToken(3))))
        #expect(h.session(call) == .running)
        // C7 order: release, interruptions, grant, then the session that runs again.
        let released = close.firstIndex(of: .cameraReleased(builtIn(ipad), camera))!
        let granted = close.firstIndex(of: .cameraGranted(builtIn(ipad), call, GrantToken(3)))!
        let ended = close.firstIndex(of: .sessionInterruptionEnded(call))!
        #expect(released < granted && granted < ended)
    }

    struct SplitCase: CustomTestStringConvertible, Sendable {
        var name: String
        var os: Int
        var app: AppSpec
        var enable: Bool
        var supported: Bool
        var expected: SessionState
        var testDescription: String { name }
    }

    /// C2.4, C3, L6 — seeds 000, 002, 003: Split View with and without multitasking camera access.
    @Test(arguments: [
        SplitCase(name: "C2.4 no access → reason 4", os: 17, app: Apps.scanner, enable: false, supported: true,
                  expected: .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps)),
        SplitCase(name: "C3 access enabled on OS 16+ → runs", os: 16, app: Apps.scanner, enable: true, supported: true,
                  expected: .running),
        SplitCase(name: "C3 same app on OS 15 → reason 4", os: 15, app: Apps.scanner, enable: false, supported: false,
                  expected: .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps)),
        SplitCase(name: "C3 deployment 15 with entitlement → runs", os: 17, app: Apps.entitled, enable: true, supported: true,
                  expected: .running),
        SplitCase(name: "C3 deployment 15 without entitlement, not enabled → reason 4", os: 17, app: Apps.legacy, enable: false,
                  supported: false, expected: .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps)),
    ])
    func c2_c3_splitViewCameraAccess(_ c: SplitCase) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, os: c.os)))
        let app = AppID.on(ipad, c.app)
        h.runCamera(app, multitasking: c.enable)
        #expect(h.session(app) == .running)
        #expect(h.state.multitaskingCameraAccessSupported(app: app) == c.supported)
        h.ok(.split(notes, side: .right))
        #expect(h.state.isMultitasking(device: ipad))
        #expect(h.session(app) == c.expected)
        // Back to one app: the interruption ends (C7).
        h.ok(.sendToBackground(notes, cause: .homeGesture))
        #expect(h.session(app) == .running)
    }

    /// C3 — seeds 000, 001: deployment target 15 without the entitlement is unsupported and enabling is refused;
    /// so is enabling on OS 15 or on hardware without support.
    @Test(arguments: [(17, true, Apps.legacy), (15, true, Apps.scanner), (17, false, Apps.scanner)])
    func c3_enablingUnsupportedMultitaskingAccessIsRefused(_ os: Int, _ hardware: Bool, _ spec: AppSpec) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, os: os, multitaskingCamera: hardware)))
        let app = AppID.on(ipad, spec)
        h.ok(.openFullScreen(app, trigger: .user))
        #expect(h.state.multitaskingCameraAccessSupported(app: app) == false)
        let rejection = h.reject(.configureSession(app, SessionConfiguration(camera: front(ipad), multitaskingCameraAccessEnabled: true)))
        #expect(rejection?.code == .multitaskingCameraAccessUnsupported)
        let events = h.ok(.configureSession(app, SessionConfiguration(camera: front(ipad))))
        #expect(events.contains(.sessionConfigured(app, hardwareCost: 0.4, multitaskingCameraAccessSupported: false)))
    }

    /// C2 order (steps 1, 2, 3) — seed 001: background → 1; stashed PiP → 1; PiP-only without access → 1 [policy].
    @Test func c2_orderOfReasonsForBackgroundAndPiP() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(call, multitasking: false)
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        h.ok(.startPiP(call, trigger: .user))
        // C2.3: shows only in PiP, access not effective → 1.
        #expect(h.session(call) == .interrupted(.videoDeviceNotAvailableInBackground))
        h.ok(.configureSession(call, SessionConfiguration(camera: front(ipad), multitaskingCameraAccessEnabled: true)))
        #expect(h.session(call) == .running)
        // P5, C2.2: stashed → 1; unstash → ends.
        h.ok(.stashPiP(call))
        #expect(h.session(call) == .interrupted(.videoDeviceNotAvailableInBackground))
        #expect(h.state.visibleApps(device: ipad).isEmpty)
        let unstash = h.ok(.unstashPiP(call))
        #expect(unstash.contains(.sessionInterruptionEnded(call)))
        // C2.1: PiP closed, app in background → 1.
        h.ok(.closePiP(call))
        #expect(h.session(call) == .interrupted(.videoDeviceNotAvailableInBackground))
        #expect(h.state.eligibilityReason(app: call) == .videoDeviceNotAvailableInBackground)
    }

    /// C6 LIFO — seeds 001, 003: among several preempted waiters the most recently preempted returns first.
    @Test func c6_lifoReturnAmongSeveralPreemptedWaiters() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, stageManager: true)))
        let apps = [Apps.scanner, Apps.notes, Apps.video].map { AppID.on(ipad, $0) }
        for (i, app) in apps.enumerated() {
            h.ok(.stageOpen(app, StageWindow(screen: ipad, frame: Frame(x: i * 10, y: 0, width: 400, height: 300))))
            h.ok(.configureSession(app, SessionConfiguration(camera: front(ipad), multitaskingCameraAccessEnabled: true)))
        }
        for app in apps { h.ok(.startSession(app)) }  // each start preempts the holder (C4)
        #expect(h.state.holder(of: builtIn(ipad)) == apps[2])
        #expect(h.session(apps[0]) == .interrupted(.videoDeviceInUseByAnotherClient))
        #expect(h.session(apps[1]) == .interrupted(.videoDeviceInUseByAnotherClient))
        let first = h.ok(.stopSession(apps[2]))
        #expect(h.state.holder(of: builtIn(ipad)) == apps[1])  // last in, first out
        #expect(first.contains(.sessionInterruptionEnded(apps[1])))
        h.ok(.stopSession(apps[1]))
        #expect(h.state.holder(of: builtIn(ipad)) == apps[0])
        #expect(h.session(apps[0]) == .running)
    }

    /// C6 [policy] longest waiting, S3 — seed 000: with no preempted waiter, the session waiting longest runs.
    @Test func c6_longestWaitingWhenNoPreemptedWaiter_s3() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, stageManager: true)))
        let apps = [Apps.scanner, Apps.notes, Apps.video].map { AppID.on(ipad, $0) }
        for (i, app) in apps.enumerated() {
            h.ok(.stageOpen(app, StageWindow(screen: ipad, frame: Frame(x: i * 10, y: 0, width: 400, height: 300))))
            h.ok(.configureSession(app, SessionConfiguration(camera: front(ipad), multitaskingCameraAccessEnabled: true)))
        }
        h.ok(.startSession(apps[0]))
        h.ok(.setPressure(builtIn(ipad), .shutdown))
        h.ok(.startSession(apps[2]))
        h.ok(.startSession(apps[1]))
        for app in apps { #expect(h.session(app) == .interrupted(.videoDeviceNotAvailableDueToSystemPressure)) }
        h.ok(.setPressure(builtIn(ipad), .nominal))
        #expect(h.state.holder(of: builtIn(ipad)) == apps[0])
        #expect(h.session(apps[1]) == .interrupted(.videoDeviceInUseByAnotherClient))
        h.ok(.stopSession(apps[0]))
        #expect(h.state.holder(of: builtIn(ipad)) == apps[2])  // started (waited) before apps[1]
    }

    /// C5 — seed 001: a session shown only in PiP never preempts; it waits with reason 3.
    @Test func c5_pipOnlySessionNeverPreempts() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(call, trigger: .user))
        h.ok(.configureSession(call, SessionConfiguration(camera: front(ipad), multitaskingCameraAccessEnabled: true)))
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        h.ok(.startPiP(call, trigger: .user))
        let scanner = AppID.on(ipad, Apps.scanner)
        h.runCamera(scanner, multitasking: true)
        let start = h.ok(.startSession(call))
        #expect(start == [.sessionWasInterrupted(call, .videoDeviceInUseByAnotherClient)])
        #expect(h.state.holder(of: builtIn(ipad)) == scanner)
        h.ok(.stopSession(scanner))
        #expect(h.state.holder(of: builtIn(ipad)) == call)  // C6: longest-waiting eligible
    }

    /// C7 — seed 000: a session that was never interrupted gets sessionStarted; no event without a change.
    @Test func c7_eventsOnlyOnEffectiveChange() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(notes, trigger: .user))
        h.ok(.configureSession(notes, SessionConfiguration(camera: front(ipad))))
        let start = h.ok(.startSession(notes))
        #expect(start == [.cameraGranted(builtIn(ipad), notes, GrantToken(1)), .sessionStarted(notes)])
        #expect(h.ok(.startSession(notes)).isEmpty)  // K5: retried start changes nothing
        let stop = h.ok(.stopSession(notes))
        #expect(stop == [.sessionStopped(notes), .cameraReleased(builtIn(ipad), notes)])
    }

    /// C8 — tokens strictly increase per camera system, independently, and survive a node's death and return (K2, K3).
    @Test func c8_tokensIncreasePerSystemAcrossDeath() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(deviceRegistration("other")))
        h.runCamera(notes)
        h.ok(.stopSession(notes))
        h.ok(.startSession(notes))
        h.runCamera(.on("other", Apps.notes))
        h.ok(.declareNodeDead(ipad))
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        let tokens = grants(h.log)
        #expect(tokens.filter { $0.0 == builtIn(ipad) }.map(\.2.value) == [1, 2, 3])
        #expect(tokens.filter { $0.0 == builtIn("other") }.map(\.2.value) == [1])
        #expect(h.state.cameraSystems[builtIn(ipad)]?.lastToken == GrantToken(3))
    }

    /// C9 — seed 002: the documented cost model; above 1.0 cannot start; an explicit cost overrides the model.
    @Test(arguments: [
        (SessionConfiguration(camera: front("ipad")), 400),
        (SessionConfiguration(camera: front("ipad"), frameRate: 60), 800),
        (SessionConfiguration(camera: front("ipad"), resolution: .uhd4K), 700),
        (SessionConfiguration(camera: front("ipad"), resolution: .uhd4K, proRAW: true), 1000),
        (SessionConfiguration(camera: front("ipad"), resolution: .uhd4K, proRAW: true, deepFusion: true), 1150),
        (SessionConfiguration(camera: front("ipad"), outputs: [.videoData, .depthData], resolution: .vga), 270),
    ])
    func c9_costModel(_ configuration: SessionConfiguration, _ milli: Int) {
        #expect(HardwareCostModel.costMilli(of: configuration) == milli)
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(notes, trigger: .user))
        if milli > 1000 {
            #expect(h.reject(.configureSession(notes, configuration))?.code == .hardwareCostExceeded)
        } else {
            h.ok(.configureSession(notes, configuration))
            h.ok(.startSession(notes))
            #expect(h.session(notes) == .running)
        }
    }

    @Test func c9_explicitHardwareCostOverridesModel() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(notes, trigger: .user))
        #expect(h.reject(.configureSession(notes, SessionConfiguration(camera: front(ipad), hardwareCost: 1.01)))?.code
                == .hardwareCostExceeded)
        let events = h.ok(.configureSession(notes, SessionConfiguration(camera: front(ipad), resolution: .uhd4K, frameRate: 120,
                                                                        hardwareCost: 0.9)))
        #expect(events.contains(.sessionConfigured(notes, hardwareCost: 0.9, multitaskingCameraAccessSupported: true)))
    }

    /// C10 — a display camera is usable only by apps of the device the display is attached to; when the
    /// display detaches its sessions are disconnected and do not restart by themselves.
    @Test func c10_displayCameraUsableOnlyByAttachedDevice() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(deviceRegistration("other")))
        h.ok(.registerNode(displayRegistration("tv", attachedTo: ipad)))
        let cam = CameraID(host: "tv", name: "cam")
        let otherNotes = AppID.on("other", Apps.notes)
        h.ok(.openFullScreen(otherNotes, trigger: .user))
        #expect(h.reject(.configureSession(otherNotes, SessionConfiguration(camera: cam)))?.code == .cameraNotUsable)
        h.ok(.openFullScreen(notes, trigger: .user))
        h.ok(.configureSession(notes, SessionConfiguration(camera: cam)))
        let start = h.ok(.startSession(notes))
        #expect(start.contains(.cameraGranted(.external(cam), notes, GrantToken(1))))
        let detach = h.ok(.detachDisplay(display: "tv"))
        #expect(detach.contains(.sessionCameraDisconnected(notes, cam)))
        #expect(detach.contains(.cameraReleased(.external(cam), notes)))
        #expect(h.session(notes) == .stopped)
        h.ok(.attachDisplay(display: "tv", device: ipad))
        #expect(h.session(notes) == .stopped)  // does not restart by itself
        h.ok(.attachDisplay(display: "tv", device: "other"))
        #expect(h.reject(.startSession(notes))?.code == .cameraNotUsable)
    }

    /// R2 — seed 000: multitasking camera access with 4K, ProRAW or Deep Fusion warns.
    @Test(arguments: [(CaptureResolution.uhd4K, false, false, true), (.hd1080, true, false, true),
                      (.hd1080, false, true, true), (.hd1080, false, false, false)])
    func r2_notRecommendedWarning(_ resolution: CaptureResolution, _ proRAW: Bool, _ deepFusion: Bool, _ warns: Bool) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(notes, trigger: .user))
        let events = h.ok(.configureSession(notes, SessionConfiguration(
            camera: front(ipad), multitaskingCameraAccessEnabled: true, resolution: resolution, proRAW: proRAW, deepFusion: deepFusion)))
        #expect(events.contains(.warning(notes, .multitaskingCameraAccessNotRecommended)) == warns)
    }
}
