/// Picture in Picture (P1–P9).
extension PolicyEngine {
    /// Where a new PiP window appears on its device's screen [policy].
    public static let defaultPiPFrame = Frame(x: 24, y: 24, width: 320, height: 180)

    /// P1, P4: why PiP cannot start for an app now, or nil when it can (visibility and trigger aside).
    func pipImpossibility(_ id: AppID) -> PiPFailureReason? {
        guard let app = state.apps[id], let pip = app.pip else { return .noController }
        guard state.deviceAttributes(id.device)?.pipSupported == true else { return .deviceUnsupported }
        guard app.spec.backgroundModeAudioAirPlayPiP else { return .missingBackgroundMode }
        guard app.audioSession.configuration.allowsBackgroundAudio else {
            return .audioSessionCategory
        }
        guard pip.setup.hasContentSource else { return .noContentSource }
        // P4: while a video-call PiP is active, other apps' PiP is not possible.
        let callActive = index.runningApps(of: id.device).contains { other in
            other != id && state.apps[other]?.hasActivePiP == true && state.apps[other]?.pip?.setup.kind == .videoCall
        }
        if callActive { return .videoCallActive }
        return nil
    }

    static func rejection(_ failure: PiPFailureReason, _ id: AppID) -> Rejection {
        switch failure {
        case .noController: Rejection(.noPiPController, "\(id) has no PiP controller", pipFailure: failure)
        case .programmaticStart:
            Rejection(.pipProgrammaticStart, "PiP may start only on a user's request (P2)", pipFailure: failure)
        default: Rejection(.pipNotPossible, "PiP is not possible for \(id): \(failure.rawValue)", pipFailure: failure)
        }
    }

    // MARK: Controller

    mutating func setupPiP(_ id: AppID, _ setup: PiPControllerSetup, _ tx: inout Transaction) throws(Rejection) {
        let app = try runningApp(id)
        guard state.deviceAttributes(id.device)?.pipSupported == true else {
            // seed 001: "attempting to initialize a PiP controller returns nil" where unsupported.
            throw Rejection(.pipNotPossible, "\(id.device) does not support PiP", pipFailure: .deviceUnsupported)
        }
        if app.pip?.setup == setup { return }
        if app.pip == nil {
            state.updateApp(id) { $0.pip = PiPRecord(setup: setup) }
        } else {
            state.updateApp(id) { $0.pip?.setup = setup }
        }
        tx.affect(id.device)
        tx.emit(.pipControllerChanged(id))
        if !setup.hasContentSource, app.hasActivePiP || app.hasSuspendedPiP {
            if app.hasActivePiP { tx.emit(.warning(id, .pipContentSourceClearedWhileActive)) }
            stopPiPWindow(id, resumeOthers: true, &tx)
        }
    }

    /// P7: clearing the content source while PiP is active closes the window, with a warning.
    mutating func setPiPContentSource(_ id: AppID, present: Bool, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard let pip = app.pip else { throw Self.rejection(.noController, id) }
        if pip.setup.hasContentSource == present { return }
        state.updateApp(id) { $0.pip?.setup.hasContentSource = present }
        tx.affect(id.device)
        tx.emit(.pipControllerChanged(id))
        if !present, app.hasActivePiP || app.hasSuspendedPiP {
            if app.hasActivePiP { tx.emit(.warning(id, .pipContentSourceClearedWhileActive)) }
            stopPiPWindow(id, resumeOthers: true, &tx)
        }
    }

    /// P7: releasing the controller while PiP is active closes the window, with a warning.
    mutating func releasePiP(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.pip != nil else { throw Self.rejection(.noController, id) }
        if app.hasActivePiP { tx.emit(.warning(id, .pipControllerReleasedWhileActive)) }
        stopPiPWindow(id, resumeOthers: true, &tx)
        state.updateApp(id) { $0.pip = nil }
        index.noteRestoreEnded(id)
        tx.affect(id.device)
        tx.emit(.pipControllerChanged(id))
    }

    // MARK: Window

    /// P1, P2, P4: a user's start while the app is visible. The app then leaves the screen for
    /// its PiP window (seed 001: "your app scales down to a corner of the screen") [policy].
    mutating func startPiP(_ id: AppID, trigger: PiPStartTrigger, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.pip != nil else { throw Self.rejection(.noController, id) }
        guard trigger == .user else { throw Self.rejection(.programmaticStart, id) }
        if app.hasActivePiP { return }
        if let failure = pipImpossibility(id) { throw Self.rejection(failure, id) }
        guard app.scene.isVisible else { throw Self.rejection(.notVisible, id) }
        leaveSplit(id, layout(of: id.device), &tx)
        setScene(id, .background, &tx)
        activatePiP(id, rule: "P2", &tx)
    }

    /// P3: a visible app going to the background starts PiP by itself when its video fills the
    /// window or it can start automatically from inline — unless the user turned that off.
    mutating func startPiPAutomatically(_ id: AppID, cause: BackgroundCause, _ tx: inout Transaction) {
        guard let app = state.apps[id], let pip = app.pip, !app.hasActivePiP,
              state.nodes[id.device]?.autoPiPEnabled == true,
              pip.setup.playingVideoFillsWindow || pip.setup.canStartAutomaticallyFromInline,
              pipImpossibility(id) == nil else { return }
        activatePiP(id, rule: "P3", &tx)
    }

    /// P4: the new window becomes the device's active one; the previous active one is suspended.
    /// `rule`: what started it (P2 the user's request, P3 automatically).
    mutating func activatePiP(_ id: AppID, rule: RuleID, _ tx: inout Transaction) {
        for other in index.runningApps(of: id.device) where other != id && state.apps[other]?.hasActivePiP == true {
            state.updateApp(other) { $0.pip?.window = .suspended }
            let ordinal = nextOrdinal()
            state.updateApp(other) {
                $0.pip?.suspendedAt = ordinal
                $0.pip?.restoreDeadline = nil
            }
            index.noteRestoreEnded(other)
            tx.emit(.pipSuspended(other))
        }
        state.updateApp(id) {
            $0.pip?.window = .active(screen: id.device, frame: Self.defaultPiPFrame, stashed: false)
            $0.pip?.suspendedAt = nil
        }
        tx.affect(id.device)
        tx.emit(.pipDidStart(id, screen: id.device, frame: Self.defaultPiPFrame), rule: rule)
    }

    /// Closes an app's active or suspended window. P4: when an active one stops, the most
    /// recently suspended window of the device resumes.
    mutating func stopPiPWindow(_ id: AppID, resumeOthers: Bool, _ tx: inout Transaction) {
        guard let app = state.apps[id], app.hasActivePiP || app.hasSuspendedPiP else { return }
        let wasActive = app.hasActivePiP
        state.updateApp(id) {
            $0.pip?.window = .inactive
            $0.pip?.suspendedAt = nil
            $0.pip?.restoreDeadline = nil
        }
        index.noteRestoreEnded(id)
        tx.affect(id.device)
        tx.emit(.pipDidStop(id))
        if wasActive && resumeOthers { resumeSuspendedPiP(device: id.device, &tx) }
    }

    mutating func resumeSuspendedPiP(device: NodeID, _ tx: inout Transaction) {
        let apps = index.runningApps(of: device)
        guard !apps.contains(where: { state.apps[$0]?.hasActivePiP == true }) else { return }
        let suspended = apps.filter { state.apps[$0]?.hasSuspendedPiP == true }
        guard let next = suspended.max(by: { a, b in
            (state.apps[a]?.pip?.suspendedAt ?? 0, b) < (state.apps[b]?.pip?.suspendedAt ?? 0, a)
        }) else { return }
        state.updateApp(next) {
            $0.pip?.window = .active(screen: device, frame: Self.defaultPiPFrame, stashed: false)
            $0.pip?.suspendedAt = nil
        }
        tx.emit(.pipResumed(next))
    }

    /// P5: stash / unstash; arbitration turns a stash into C2.2 for a video call's session.
    mutating func setPiPStashed(_ id: AppID, _ stashed: Bool, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard case .active(let screen, let frame, let current)? = app.pip?.window else {
            throw Rejection(.pipNotActive, "\(id) has no active PiP window")
        }
        if current == stashed { return }
        state.updateApp(id) { $0.pip?.window = .active(screen: screen, frame: frame, stashed: stashed) }
        tx.affect(id.device)
        tx.emit(stashed ? .pipStashed(id) : .pipUnstashed(id))
    }

    /// P8: the user drags or resizes the window, on the device or an attached display.
    mutating func movePiP(_ id: AppID, screen: NodeID, frame: Frame, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard case .active(let oldScreen, let oldFrame, let stashed)? = app.pip?.window else {
            throw Rejection(.pipNotActive, "\(id) has no active PiP window")
        }
        try validateScreen(screen, device: id.device)
        try validateFrame(frame)
        if oldScreen == screen && oldFrame == frame { return }
        state.updateApp(id) { $0.pip?.window = .active(screen: screen, frame: frame, stashed: stashed) }
        tx.affect(id.device)
        tx.emit(.pipMoved(id, screen: screen, frame: frame))
    }

    /// P6: the user closes the window.
    mutating func closePiP(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.hasActivePiP else { throw Rejection(.pipNotActive, "\(id) has no active PiP window") }
        stopPiPWindow(id, resumeOthers: true, &tx)
    }

    /// P6: the user taps restore — the app returns full screen and must restore its interface
    /// before `now + pipRestoreDeadlineMilliseconds`.
    mutating func restorePiP(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.hasActivePiP else { throw Rejection(.pipNotActive, "\(id) has no active PiP window") }
        guard app.pip?.restoreDeadline == nil else { return }
        if case .active(let screen, let frame, true)? = app.pip?.window {
            state.updateApp(id) { $0.pip?.window = .active(screen: screen, frame: frame, stashed: false) }
            tx.emit(.pipUnstashed(id))
        }
        // The apps the restored app replaces do not start PiP automatically: that would suspend
        // the very window being restored (P4) [policy].
        if app.scene != .fullScreen { openFullScreenUnchecked(id, cause: nil, keepPiP: true, &tx) }
        state.updateApp(id) { $0.pip?.restoreDeadline = tx.now.adding(milliseconds: settings.pipRestoreDeadlineMilliseconds) }
        index.noteRestoring(id)
        tx.affect(id.device)
        tx.emit(.pipRestoreUserInterface(id))
    }

    /// P6: the app finished restoring; in time the window animates back, else it just disappears.
    mutating func completePiPRestore(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard let deadline = app.pip?.restoreDeadline else { throw Rejection(.illegalState, "\(id) is not restoring") }
        finishRestore(id, restored: tx.now <= deadline, &tx)
    }

    /// P6: issued by the coordinator at the deadline; a restore already finished makes it a no-op.
    mutating func pipRestoreDeadlinePassed(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard let deadline = app.pip?.restoreDeadline else { return }
        guard tx.now >= deadline else { throw Rejection(.illegalState, "the restore deadline of \(id) is \(deadline)") }
        finishRestore(id, restored: false, &tx)
    }

    mutating func finishRestore(_ id: AppID, restored: Bool, _ tx: inout Transaction) {
        state.updateApp(id) { $0.pip?.restoreDeadline = nil }
        index.noteRestoreEnded(id)
        tx.emit(.pipRestoreFinished(id, restored: restored))
        stopPiPWindow(id, resumeOthers: true, &tx)
    }

    /// P6: the earliest pending restore deadline and the command the coordinator issues when it passes.
    /// O(pending restores): only the apps the index lists as restoring are looked at.
    public func nextDeadline() -> (Instant, Command)? {
        var best: (Instant, AppID)?
        for id in index.restoring {
            guard let deadline = state.apps[id]?.pip?.restoreDeadline else { continue }
            if let current = best, (current.0, current.1) <= (deadline, id) { continue }
            best = (deadline, id)
        }
        return best.map { ($0.0, .pipRestoreDeadlinePassed($0.1)) }
    }
}
