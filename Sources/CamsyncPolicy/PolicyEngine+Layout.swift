/// Layout per device (L1–L5) and the device settings that shape it.
extension PolicyEngine {
    /// The non-Stage-Manager slots of a device's screen (L1).
    struct DeviceLayout {
        var fullScreen: AppID?
        var primary: AppID?
        var secondary: AppID?
        var slideOver: AppID?
    }

    func layout(of device: NodeID) -> DeviceLayout {
        var layout = DeviceLayout()
        for id in index.runningApps(of: device) {
            switch state.apps[id]?.scene {
            case .fullScreen: layout.fullScreen = id
            case .splitPrimary: layout.primary = id
            case .splitSecondary: layout.secondary = id
            case .slideOver: layout.slideOver = id
            default: break
            }
        }
        return layout
    }

    /// Default frame of the `index`-th Stage Manager window placed by the engine [policy].
    static func defaultStageFrame(_ index: Int) -> Frame {
        Frame(x: 40 * index, y: 40 * index, width: 800, height: 600)
    }

    /// Sets an app's scene, publishing the change.
    mutating func setScene(_ id: AppID, _ scene: Scene, _ tx: inout Transaction) {
        guard let old = state.apps[id]?.scene, old != scene else { return }
        state.updateApp(id) { $0.scene = scene }
        if old.isRunning != scene.isRunning {
            index.noteRunning(id, scene.isRunning)
            if old.isRunning { tx.noteStopped(id) }
        }
        tx.affect(id.device)
        if case .stageWindow(let window) = scene { tx.affect(window.screen) }
        if case .stageWindow(let window) = old { tx.affect(window.screen) }
        tx.emit(.sceneChanged(id, from: old, to: scene))
    }

    /// Sends a running app to the background. With a cause (P3's three ways), PiP may start automatically.
    mutating func moveToBackground(_ id: AppID, cause: BackgroundCause?, _ tx: inout Transaction) {
        guard let app = state.apps[id], app.scene.isVisible else { return }
        setScene(id, .background, &tx)
        if let cause { startPiPAutomatically(id, cause: cause, &tx) }
    }

    /// Prepares an app that is about to be shown on a screen: an app shown through its
    /// PiP window leaves PiP (its window closes) [policy]; Camera.app starts its camera
    /// (seed 001: it "assumes control of the camera when it's opened"); a session that wants
    /// to run claims its camera (C4) when the app was not on screen.
    mutating func bringToForeground(_ id: AppID, keepPiP: Bool = false, _ tx: inout Transaction) {
        guard let app = state.apps[id] else { return }
        let wasVisible = app.scene.isVisible
        if !keepPiP { stopPiPWindow(id, resumeOthers: true, &tx) }
        if app.spec.isSystemCameraApp && !wasVisible { startSystemCamera(id, &tx) }
        if !wasVisible, state.apps[id]?.session?.wantsToRun == true { tx.claim(id) }
    }

    // MARK: Apps

    mutating func installApp(_ spec: AppSpec, on device: NodeID, _ tx: inout Transaction) throws(Rejection) {
        _ = try aliveDevice(device)
        guard !spec.bundleID.isEmpty else { throw Rejection(.invalidArgument, "empty bundle id") }
        let id = AppID(device: device, bundleID: spec.bundleID)
        guard state.apps[id] == nil else { throw Rejection(.alreadyExists, "\(id) is already installed") }
        guard spec.memoryFootprintMB >= 0 else { throw Rejection(.invalidArgument, "negative memory footprint") }
        state.apps[id] = AppRecord(id: id, spec: spec, memoryFootprintMB: spec.memoryFootprintMB)
        index.noteInstalled(id)
        tx.affect(device)
        tx.emit(.appInstalled(id))
    }

    /// L1: the app fills the device screen; the apps it replaces go to the background.
    mutating func openFullScreen(_ id: AppID, trigger: OpenTrigger, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        if app.scene == .fullScreen { return }
        openFullScreenUnchecked(id, cause: trigger == .notification ? .notificationTapped : .otherAppOpened,
                                keepPiP: false, &tx)
    }

    mutating func openFullScreenUnchecked(_ id: AppID, cause: BackgroundCause?, keepPiP: Bool, _ tx: inout Transaction) {
        let device = id.device
        let replaced = index.runningApps(of: device).filter { other in
            guard other != id, let scene = state.apps[other]?.scene else { return false }
            switch scene {
            case .fullScreen, .splitPrimary, .splitSecondary: return true
            case .stageWindow(let window): return window.screen == device
            default: return false
            }
        }
        bringToForeground(id, keepPiP: keepPiP, &tx)
        setScene(id, .fullScreen, &tx)
        for other in replaced { moveToBackground(other, cause: cause, &tx) }
    }

    /// L1, L2, L4: puts the app on one side of a split pair. The primary is the left app,
    /// the right one in RTL layout.
    mutating func split(_ id: AppID, side: SplitSide, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        let node = try aliveDevice(id.device)
        guard !app.spec.requiresFullScreen else {
            throw Rejection(.requiresFullScreen, "\(id) requires full screen and cannot be split (L4)")
        }
        guard !node.stageManagerEnabled else { throw Rejection(.illegalState, "Split View is not available with Stage Manager on") }
        let primarySide: SplitSide = node.layoutDirection == .leftToRight ? .left : .right
        let target: Scene = side == primarySide ? .splitPrimary : .splitSecondary
        let other: Scene = side == primarySide ? .splitSecondary : .splitPrimary
        let current = layout(of: id.device)
        if app.scene == target { return }
        if let primary = current.primary, let secondary = current.secondary {
            if id == primary || id == secondary {
                // Swap sides within the pair.
                let partner = id == primary ? secondary : primary
                setScene(partner, other, &tx)
                setScene(id, target, &tx)
                return
            }
            let occupant = target == .splitPrimary ? primary : secondary
            bringToForeground(id, &tx)
            if app.scene == .slideOver { /* leaves Slide Over for the split */ }
            setScene(id, target, &tx)
            moveToBackground(occupant, cause: .otherAppOpened, &tx)
            return
        }
        guard let partner = current.fullScreen, partner != id else {
            throw Rejection(.illegalState, "no full-screen app to split \(id) with")
        }
        guard state.apps[partner]?.spec.requiresFullScreen == false else {
            throw Rejection(.requiresFullScreen, "\(partner) requires full screen and cannot be split (L4)")
        }
        bringToForeground(id, &tx)
        setScene(partner, other, &tx)
        setScene(id, target, &tx)
    }

    /// L1, L4: the app slides over whatever is on screen; a previous Slide Over app goes to the background.
    mutating func slideOver(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        let node = try aliveDevice(id.device)
        guard !app.spec.requiresFullScreen else {
            throw Rejection(.requiresFullScreen, "\(id) requires full screen and cannot slide over (L4)")
        }
        guard !node.stageManagerEnabled else { throw Rejection(.illegalState, "Slide Over is not available with Stage Manager on") }
        if app.scene == .slideOver { return }
        let current = layout(of: id.device)
        bringToForeground(id, &tx)
        leaveSplit(id, current, &tx)
        setScene(id, .slideOver, &tx)
        if let previous = current.slideOver { moveToBackground(previous, cause: .otherAppOpened, &tx) }
    }

    /// When one app of a split pair leaves it, its partner fills the screen [policy].
    mutating func leaveSplit(_ id: AppID, _ current: DeviceLayout, _ tx: inout Transaction) {
        if id == current.primary, let partner = current.secondary { setScene(partner, .fullScreen, &tx) }
        if id == current.secondary, let partner = current.primary { setScene(partner, .fullScreen, &tx) }
    }

    // MARK: Stage Manager (L3)

    func validateStageWindow(_ id: AppID, _ app: AppRecord, _ window: StageWindow) throws(Rejection) {
        let node = try aliveDevice(id.device)
        guard !app.spec.requiresFullScreen else {
            throw Rejection(.requiresFullScreen, "\(id) requires full screen and cannot be a stage window (L4)")
        }
        guard node.stageManagerEnabled else { throw Rejection(.stageManagerOff, "Stage Manager is off on \(id.device)") }
        try validateScreen(window.screen, device: id.device)
        try validateFrame(window.frame)
        if case .stageWindow(let old) = app.scene, old.screen == window.screen { return }
        let onScreen = index.runningApps(of: id.device).filter { other in
            guard other != id, case .stageWindow(let w) = state.apps[other]?.scene else { return false }
            return w.screen == window.screen
        }.count
        guard onScreen < settings.stageWindowLimitPerScreen else {
            throw Rejection(.stageWindowLimit, "screen \(window.screen) already shows \(onScreen) stage windows")
        }
    }

    mutating func stageOpen(_ id: AppID, _ window: StageWindow, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        try validateStageWindow(id, app, window)
        if app.scene == .stageWindow(window) { return }
        let fullScreen = layout(of: id.device).fullScreen
        bringToForeground(id, &tx)
        setScene(id, .stageWindow(window), &tx)
        // A window opened on the device screen covers a full-screen app [policy].
        if window.screen == id.device, let fullScreen, fullScreen != id {
            moveToBackground(fullScreen, cause: .otherAppOpened, &tx)
        }
    }

    mutating func stageMove(_ id: AppID, _ window: StageWindow, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard case .stageWindow = app.scene else { throw Rejection(.illegalState, "\(id) has no stage window") }
        try validateStageWindow(id, app, window)
        setScene(id, .stageWindow(window), &tx)
    }

    mutating func stageClose(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard case .stageWindow = app.scene else { throw Rejection(.illegalState, "\(id) has no stage window") }
        moveToBackground(id, cause: nil, &tx)
    }

    // MARK: Leaving the screen

    /// The home gesture: every app on the device screen goes to the background (P3: PiP may start).
    mutating func goHome(_ device: NodeID, _ tx: inout Transaction) throws(Rejection) {
        _ = try aliveDevice(device)
        let leaving = index.runningApps(of: device).filter { id in
            guard let scene = state.apps[id]?.scene else { return false }
            if case .stageWindow(let window) = scene { return window.screen == device }
            return scene.isVisible
        }
        for id in leaving { moveToBackground(id, cause: .homeGesture, &tx) }
        tx.affect(device)
    }

    mutating func sendToBackground(_ id: AppID, cause: BackgroundCause, _ tx: inout Transaction) throws(Rejection) {
        let app = try runningApp(id)
        guard app.scene.isVisible else { return }
        leaveSplit(id, layout(of: id.device), &tx)
        moveToBackground(id, cause: cause, &tx)
    }

    mutating func terminateCommand(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.scene.isRunning else { return }
        terminateApp(id, reason: .user, &tx)
    }

    /// Ends an app's process: its PiP window closes (P4: a suspended one resumes), its
    /// recording finishes (R1), its session, PiP controller and audio session are gone;
    /// arbitration then releases its camera (C6), settling ends the interruptions it caused (A6).
    mutating func terminateApp(_ id: AppID, reason: TerminationReason, _ tx: inout Transaction) {
        guard let app = state.apps[id], app.scene.isRunning else { return }
        tx.emit(.appTerminated(id, reason))
        if reason != .deviceGone { leaveSplit(id, layout(of: id.device), &tx) }
        setScene(id, .terminated, &tx)
        stopPiPWindow(id, resumeOthers: reason != .deviceGone, &tx)
        if app.session?.recording != nil { finishRecording(id, &tx) }
        if app.session?.wantsToRun == true { tx.emit(.sessionStopped(id)) }
        if let camera = app.session?.configuration.camera { tx.affect(camera.host) }
        state.updateApp(id) { $0.session = nil }
        index.moveSession(id, from: app.session?.configuration.camera.host, to: nil)
        state.updateApp(id) { $0.pip = nil }
        index.noteRestoreEnded(id)
        endAudioSession(id)
        tx.affect(id.device)
    }

    mutating func reportMemory(_ id: AppID, megabytes: Int, _ tx: inout Transaction) throws(Rejection) {
        _ = try existingApp(id)
        guard megabytes >= 0 else { throw Rejection(.invalidArgument, "negative memory footprint") }
        state.updateApp(id) { $0.memoryFootprintMB = megabytes }
        tx.affect(id.device)
    }

    // MARK: Device settings

    /// L3: turning Stage Manager on makes split and Slide Over apps stage windows on the device
    /// screen (up to the limit); turning it off sends every stage window to the background [policy].
    mutating func setStageManager(_ device: NodeID, enabled: Bool, _ tx: inout Transaction) throws(Rejection) {
        let node = try aliveDevice(device)
        if enabled, state.deviceAttributes(device)?.stageManagerSupported != true {
            throw Rejection(.illegalState, "\(device) does not support Stage Manager")
        }
        if node.stageManagerEnabled == enabled { return }
        state.nodes[device]?.stageManagerEnabled = enabled
        tx.emit(.deviceSettingsChanged(device))
        tx.affect(device)
        if enabled {
            let current = layout(of: device)
            var index = 0
            for id in [current.primary, current.secondary, current.slideOver].compactMap({ $0 }) {
                if index < settings.stageWindowLimitPerScreen {
                    setScene(id, .stageWindow(StageWindow(screen: device, frame: Self.defaultStageFrame(index))), &tx)
                    index += 1
                } else {
                    moveToBackground(id, cause: nil, &tx)
                }
            }
        } else {
            for id in index.runningApps(of: device) {
                if case .stageWindow = state.apps[id]?.scene { moveToBackground(id, cause: nil, &tx) }
            }
        }
    }

    mutating func setAutoPiP(_ device: NodeID, enabled: Bool, _ tx: inout Transaction) throws(Rejection) {
        let node = try aliveDevice(device)
        if node.autoPiPEnabled == enabled { return }
        state.nodes[device]?.autoPiPEnabled = enabled
        tx.emit(.deviceSettingsChanged(device))
    }

    /// L2: the primary is the left app, the right one in RTL — changing direction swaps the pair's roles.
    mutating func setLayoutDirection(_ device: NodeID, _ direction: LayoutDirection, _ tx: inout Transaction) throws(Rejection) {
        let node = try aliveDevice(device)
        if node.layoutDirection == direction { return }
        state.nodes[device]?.layoutDirection = direction
        tx.emit(.deviceSettingsChanged(device))
        tx.affect(device)
        let current = layout(of: device)
        if let primary = current.primary, let secondary = current.secondary {
            setScene(primary, .splitSecondary, &tx)
            setScene(secondary, .splitPrimary, &tx)
        }
    }
}
