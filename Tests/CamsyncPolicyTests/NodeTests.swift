import Testing
@testable import CamsyncPolicy

/// K1, K2 and the node-facing helpers.
@Suite struct NodeTests {
    let ipad: NodeID = "ipad"
    var notes: AppID { .on(ipad, Apps.notes) }
    var scanner: AppID { .on(ipad, Apps.scanner) }
    var call: AppID { .on(ipad, Apps.call) }

    /// K1 — a dead device: apps terminated (deviceGone), sessions and PiP gone, displays detach, camera released.
    @Test func k1_deadDevice() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(displayRegistration("tv", attachedTo: ipad)))
        h.runCamera(call, multitasking: true)
        h.ok(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        h.ok(.startPiP(call, trigger: .user))
        let events = h.ok(.declareNodeDead(ipad))
        #expect(events.first == .nodeLeft(ipad, .declaredDead))
        #expect(events.contains(.appTerminated(call, .deviceGone)))
        #expect(events.contains(.displayDetached(display: "tv", device: ipad)))
        #expect(events.contains(.cameraReleased(builtIn(ipad), call)))
        #expect(h.state.apps[call]?.session == nil && h.state.apps[call]?.pip == nil)
        #expect(h.state.cameraSystems[builtIn(ipad)]?.available == false)
        #expect(h.reject(.openFullScreen(notes, trigger: .user))?.code == .nodeNotAlive)
        #expect(h.ok(.declareNodeDead(ipad)).isEmpty)  // idempotent
    }

    /// [policy] Commands that would change nothing are refused before they take a sequence: attaching a
    /// display where it is attached, detaching one that is attached to none. `apply` still accepts them
    /// as no-ops (a log written before the refusal replays).
    @Test("attaching an attached display and detaching a detached one are refused as no-ops; apply still accepts them")
    func noOpDisplayCommandsAreRefused() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(displayRegistration("tv", attachedTo: ipad)))
        #expect(h.engine.noOpRefusal(.attachDisplay(display: "tv", device: ipad))?.code == .alreadyExists)
        #expect(h.engine.noOpRefusal(.detachDisplay(display: "tv")) == nil, "an attached display detaches")
        #expect(h.ok(.detachDisplay(display: "tv")) == [.displayDetached(display: "tv", device: ipad)])
        let refusal = h.engine.noOpRefusal(.detachDisplay(display: "tv"))
        #expect(refusal?.code == .displayNotAttached)
        #expect(refusal?.message == "tv is not attached to a device: nothing to do")
        #expect(h.engine.noOpRefusal(.attachDisplay(display: "tv", device: ipad)) == nil, "a detached display attaches")
        #expect(h.ok(.detachDisplay(display: "tv")).isEmpty, "replayed from an older log: no events")
        #expect(h.engine.noOpRefusal(.detachDisplay(display: "nobody")) == nil, "an unknown node is apply's to refuse")
    }

    /// K1, L3, C2.4, C10 — seed 000: a stage window on a display; the display dies → the window is back on the
    /// device screen, eligibility re-evaluated (still multitasking → reason 4), display camera disconnected.
    @Test func k1_deadDisplayReturnsWindows() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, stageManager: true)))
        h.ok(.registerNode(displayRegistration("tv", attachedTo: ipad)))
        let frame = Frame(x: 0, y: 0, width: 500, height: 400)
        h.ok(.stageOpen(notes, StageWindow(screen: ipad, frame: frame)))
        h.ok(.stageOpen(scanner, StageWindow(screen: ipad, frame: frame)))
        h.ok(.stageMove(scanner, StageWindow(screen: "tv", frame: frame)))
        let cam = CameraID(host: "tv", name: "cam")
        h.ok(.configureSession(notes, SessionConfiguration(camera: front(ipad))))
        h.ok(.startSession(notes))
        #expect(h.session(notes) == .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps))
        h.ok(.configureSession(scanner, SessionConfiguration(camera: cam, hardwareCost: 0.5)))
        h.ok(.startSession(scanner))
        let events = h.ok(.declareNodeDead("tv"))
        #expect(h.state.apps[scanner]?.scene == .stageWindow(StageWindow(screen: ipad, frame: frame)))
        #expect(events.contains(.sessionCameraDisconnected(scanner, cam)))
        #expect(h.session(notes) == .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps))
        #expect(h.state.isMultitasking(device: ipad))
        // The device alone: closing the other window ends the interruption.
        h.ok(.stageClose(scanner))
        #expect(h.session(notes) == .running)
    }

    /// K2 — a dead device re-registers with assertions: scenes, session (wantsToRun) and PiP setup come back and
    /// arbitration follows; tokens continue (C8).
    @Test func k2_reRegistrationWithAssertions() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        h.ok(.declareNodeDead(ipad))
        let assertions = [
            AppAssertion(bundleID: Apps.notes.bundleID, scene: .fullScreen,
                         session: SessionConfiguration(camera: front(ipad)), sessionWantsToRun: true),
            AppAssertion(bundleID: Apps.video.bundleID, scene: .background, pip: PiPControllerSetup(kind: .playback)),
            AppAssertion(bundleID: "com.example.unknown", scene: .fullScreen),
            AppAssertion(bundleID: Apps.scanner.bundleID, scene: .fullScreen),  // slot taken → background
        ]
        let events = h.ok(.registerNode(deviceRegistration(ipad, assertions: assertions)))
        #expect(events.first == .nodeRejoined(ipad, .device))
        #expect(events.contains(.cameraGranted(builtIn(ipad), notes, GrantToken(2))))
        #expect(h.session(notes) == .running)
        #expect(h.state.apps[.on(ipad, Apps.video)]?.pip?.setup.kind == .playback)
        #expect(h.state.apps[scanner]?.scene == .background)
    }

    /// K2, K5 — an alive node re-registering with identical attributes changes nothing.
    @Test func k2_identicalReRegistrationIsIdempotent() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        let before = h.state
        #expect(h.ok(.registerNode(deviceRegistration(ipad))).isEmpty)
        #expect(h.state == before)
        // New attributes while alive: the coordinator's state wins, new apps are added.
        let extra = AppSpec(bundleID: "com.example.new")
        let events = h.ok(.registerNode(deviceRegistration(ipad, apps: Apps.all + [extra])))
        #expect(events == [.nodeRejoined(ipad, .device), .appInstalled(.on(ipad, extra))])
        #expect(h.session(notes) == .running)
        #expect(h.reject(.registerNode(displayRegistration(ipad)))?.code == .wrongNodeKind)
    }

    /// K3, C8, R1 — a coordinator restarted from its state (snapshot or replayed journal) continues the tokens
    /// and keeps the R1 fact.
    @Test func k3_restartFromStateContinuesTokens() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        h.ok(.stopSession(notes))
        var restarted = PolicyEngine(settings: h.engine.settings, state: h.state)
        let events = try? restarted.apply(.startSession(notes), at: h.now.adding(milliseconds: 1)).get()
        #expect(events?.contains(.cameraGranted(builtIn(ipad), notes, GrantToken(2))) == true)
    }

    @Test func subjectNodeOfCommands() {
        #expect(Command.startSession(notes).subjectNode == ipad)
        #expect(Command.attachDisplay(display: "tv", device: ipad).subjectNode == "tv")
        #expect(Command.setPressure(.external(CameraID(host: "tv", name: "cam")), .fair).subjectNode == "tv")
        #expect(Command.registerNode(deviceRegistration("x")).subjectNode == "x")
        #expect(Command.goHome(device: ipad).subjectNode == ipad)
    }
}

/// Found by libFuzzer (docs/HOSTILE.md): re-registering a live device without Stage Manager support
/// must not leave stage windows behind (L3, K2).
@Suite struct ReRegistrationStageManagerTests {
    @Test("K2/L3: re-registration that drops Stage Manager support sends stage windows to the background")
    func stageWindowsLeaveWhenStageManagerGoesAway() throws {
        var engine = PolicyEngine()
        let notes = AppID(device: "ipad-1", bundleID: "notes")
        var device = DeviceAttributes(model: "iPad", osMajor: 16, stageManagerSupported: true, stageManagerEnabled: true,
                                      apps: [AppSpec(bundleID: "notes")])
        _ = try engine.apply(.registerNode(NodeRegistration(node: "ipad-1", attributes: .device(device))), at: .zero).get()
        _ = try engine.apply(.stageOpen(notes, StageWindow(screen: "ipad-1", frame: Frame(x: 0, y: 0, width: 500, height: 400))),
                             at: .zero).get()
        device.stageManagerSupported = false
        let events = try engine.apply(.registerNode(NodeRegistration(node: "ipad-1", attributes: .device(device))), at: .zero).get()
        #expect(engine.state.apps[notes]?.scene == .background)
        #expect(events.contains(.deviceSettingsChanged("ipad-1")))
        #expect(engine.state.invariantViolations(settings: engine.settings).isEmpty)
    }
}
