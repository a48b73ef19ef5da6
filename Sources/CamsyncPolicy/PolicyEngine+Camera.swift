/// Capture sessions and camera arbitration (C1–C10).
extension PolicyEngine {
    // MARK: Sessions

    /// Validates a configuration for an app: its cameras are usable by it (C10), the capture graph
    /// fits the device (C11–C14), the cost fits (C9), and multitasking camera access is supported
    /// where enabled (C3).
    func validateConfiguration(_ id: AppID, _ configuration: SessionConfiguration) throws(Rejection) -> (CameraSystemID, Double, Bool) {
        guard configuration.frameRate > 0 else { throw Rejection(.invalidArgument, "frame rate must be positive") }
        if let explicit = configuration.hardwareCost, !(explicit >= 0) {
            throw Rejection(.invalidArgument, "hardware cost must be a non-negative number")
        }
        let system = try usableCameraSystem(configuration.camera, by: id)
        for camera in configuration.additionalCameras { _ = try usableCameraSystem(camera, by: id) }
        // C11–C14
        if let rejection = state.captureGraphRejection(of: configuration, device: id.device) { throw rejection }
        let cost = HardwareCostModel.cost(of: configuration)
        guard cost <= settings.maxHardwareCost else {
            throw Rejection(.hardwareCostExceeded, "hardware cost \(cost) exceeds \(settings.maxHardwareCost) (C9)")
        }
        let supported = state.multitaskingCameraAccessSupported(app: id, configuration: configuration)
        if configuration.multitaskingCameraAccessEnabled && !supported {
            throw Rejection(.multitaskingCameraAccessUnsupported,
                            "multitasking camera access is not supported for \(id) (C3)")
        }
        return (system, cost, supported)
    }

    mutating func configureSession(_ id: AppID, _ configuration: SessionConfiguration, _ tx: inout Transaction) throws(Rejection) {
        _ = try runningApp(id)
        let (_, cost, supported) = try validateConfiguration(id, configuration)
        setConfiguration(id, configuration, cost: cost, supported: supported, &tx)
    }

    mutating func setConfiguration(_ id: AppID, _ configuration: SessionConfiguration, cost: Double, supported: Bool,
                                   _ tx: inout Transaction) {
        let oldHost = state.apps[id]?.session?.configuration.camera.host
        if let old = state.apps[id]?.session {
            tx.affect(old.configuration.camera.host)
            state.updateApp(id) {
                $0.session?.configuration = configuration
                $0.session?.hardwareCost = cost
                $0.session?.multitaskingCameraAccessSupported = supported
            }
        } else {
            state.updateApp(id) {
                $0.session = CaptureSessionRecord(configuration: configuration, hardwareCost: cost,
                                                  multitaskingCameraAccessSupported: supported)
            }
        }
        index.moveSession(id, from: oldHost, to: configuration.camera.host)
        tx.affect(id.device)
        tx.affect(configuration.camera.host)
        tx.emit(.sessionConfigured(id, hardwareCost: cost, multitaskingCameraAccessSupported: supported))
        // R2
        if configuration.multitaskingCameraAccessEnabled
            && (configuration.resolution == .uhd4K || configuration.proRAW || configuration.deepFusion) {
            tx.emit(.warning(id, .multitaskingCameraAccessNotRecommended))
        }
    }

    mutating func startSession(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try runningApp(id)
        guard let session = app.session else { throw Rejection(.noSession, "\(id) has no capture session") }
        for camera in session.configuration.cameras { _ = try usableCameraSystem(camera, by: id) }
        guard session.hardwareCost <= settings.maxHardwareCost else {
            throw Rejection(.hardwareCostExceeded, "hardware cost \(session.hardwareCost) exceeds \(settings.maxHardwareCost) (C9)")
        }
        if session.wantsToRun { return }
        state.updateApp(id) { $0.session?.wantsToRun = true }
        tx.claim(id)
    }

    mutating func stopSession(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard let session = app.session else { throw Rejection(.noSession, "\(id) has no capture session") }
        guard session.wantsToRun else { return }
        stopSessionUnchecked(id, &tx)
        tx.emit(.sessionStopped(id))
    }

    /// The session no longer wants to run; arbitration releases its camera if it held it.
    mutating func stopSessionUnchecked(_ id: AppID, _ tx: inout Transaction) {
        guard let session = state.apps[id]?.session else { return }
        state.updateApp(id) {
            $0.session?.wantsToRun = false
            $0.session?.state = .stopped
            $0.session?.preemptedAt = nil
            $0.session?.waitingSince = nil
        }
        tx.affect(id.device)
        tx.affect(session.configuration.camera.host)
    }

    /// Camera.app starts its camera when it is opened (seed 001) [policy]: it configures a default
    /// session on the device's first built-in camera if it has none, and wants it to run.
    mutating func startSystemCamera(_ id: AppID, _ tx: inout Transaction) {
        if state.apps[id]?.session == nil {
            guard let camera = state.cameraSystems[.builtIn(device: id.device)]?.cameras.first,
                  let (_, cost, supported) = try? validateConfiguration(id, SessionConfiguration(camera: camera))
            else { return }
            setConfiguration(id, SessionConfiguration(camera: camera), cost: cost, supported: supported, &tx)
        }
        guard let session = state.apps[id]?.session, !session.wantsToRun,
              (try? usableCameraSystem(session.configuration.camera, by: id)) != nil else { return }
        state.updateApp(id) { $0.session?.wantsToRun = true }
        tx.affect(id.device)
    }

    /// C10: every session using or waiting for a camera of `system` is disconnected and stops.
    mutating func disconnectSessions(of system: CameraSystemID, _ tx: inout Transaction) {
        let users = index.sessionApps(cameraHost: system.host).sorted().filter { id in
            guard let session = state.apps[id]?.session, session.wantsToRun else { return false }
            return state.cameraSystem(of: session.configuration.camera) == system
        }
        for id in users {
            guard let camera = state.apps[id]?.session?.configuration.camera else { continue }
            stopSessionUnchecked(id, &tx)
            tx.emit(.sessionCameraDisconnected(id, camera))
        }
        tx.affect(system.host)
    }

    // MARK: Arbitration

    /// The core of camera arbitration, run for every camera system a command touched.
    ///
    /// 1. Each session that wants the system gets its C2 eligibility (steps 1–5).
    /// 2. The holder keeps the camera while it wants it and stays eligible; otherwise it is released.
    /// 3. C4/C5: a claimant (a session that started, or whose app came to the foreground, in
    ///    this command) that is eligible and shown on a screen — not only in PiP — takes the
    ///    camera; a holder it takes it from is marked preempted (for LIFO return).
    /// 4. C6: a free camera goes to the eligible waiter preempted most recently; without one, to
    ///    the eligible session waiting longest [policy]; ties by app id.
    /// 5. C7/C8: state changes are published — release, interruptions (in app order), the
    ///    grant with `lastToken + 1`, then sessions that run (started / interruption ended);
    ///    S2 advice goes to a new holder under serious or critical pressure.
    mutating func rearbitrate(_ systemID: CameraSystemID, _ tx: inout Transaction) {
        guard var system = state.cameraSystems[systemID] else { return }
        let wanting = index.sessionApps(cameraHost: systemID.host).filter { id in
            guard let app = state.apps[id], app.scene.isRunning, let session = app.session, session.wantsToRun else { return false }
            return state.cameraSystem(of: session.configuration.camera) == systemID
        }.sorted()
        var reasons: [AppID: Ineligibility] = [:]
        for id in wanting {
            if let why = state.ineligibility(app: id, deviceApps: index.runningApps(of: id.device)) { reasons[id] = why }
        }
        let eligible = wanting.filter { reasons[$0] == nil && system.available }
        let previous = system.holder
        var holder = previous
        if let current = holder, !eligible.contains(current) { holder = nil }
        // The rule a new holder gets the camera by: C4 (it claimed it from a holder it preempts), C6 (it
        // was returned to a session that waited for it), or C1 (it was free and nobody waited: one holder).
        var grantRule: RuleID = "C6"
        // C4, C5
        for claimant in tx.claimants where eligible.contains(claimant) && state.apps[claimant]?.scene.isVisible == true {
            if claimant == holder { break }
            if let current = holder {
                let ordinal = nextOrdinal()
                state.updateApp(current) { $0.session?.preemptedAt = ordinal }
                grantRule = "C4"
            } else {
                grantRule = "C1"
            }
            holder = claimant
            break
        }
        // C6
        if holder == nil {
            holder = state.returnOrder(eligible).first
            // A session that did not wait (it starts now, e.g. one shown only in PiP) takes a free camera.
            if let holder, previous == nil, case .stopped? = state.apps[holder]?.session?.state { grantRule = "C1" }
        }
        // Publish, each event with the rule that decided it.
        let preempted = grantRule == "C4" && previous.map(wanting.contains) == true
        if let previous, previous != holder {
            let rule: RuleID = reasons[previous]?.rule ?? (!system.available ? "C10" : preempted ? "C4" : "C6")
            tx.emit(.cameraReleased(systemID, previous), rule: rule)
        }
        var running: [Decision] = []
        let runningRule: RuleID = holder != previous ? grantRule : "C1"
        for id in wanting {
            guard let old = state.apps[id]?.session?.state else { continue }
            let new: SessionState = id == holder ? .running : .interrupted(reasons[id]?.reason ?? .videoDeviceInUseByAnotherClient)
            if id == holder {
                state.updateApp(id) {
                    $0.session?.preemptedAt = nil
                    $0.session?.waitingSince = nil
                }
            } else if state.apps[id]?.session?.waitingSince == nil {
                let ordinal = nextOrdinal()
                state.updateApp(id) { $0.session?.waitingSince = ordinal }
            }
            guard old != new else { continue }
            state.updateApp(id) { $0.session?.state = new }
            switch (old, new) {
            case (.stopped, .running): running.append(Decision(.sessionStarted(id), rule: runningRule))
            case (_, .running): running.append(Decision(.sessionInterruptionEnded(id), rule: runningRule))
            case (_, .interrupted(let reason)):
                // Not eligible: C2's step; eligible but not the holder: preempted (C4), PiP cannot take it (C5), or waiting (C2.6).
                let rule: RuleID = reasons[id]?.rule ?? (!system.available ? "C10" : id == previous && preempted ? "C4"
                    : state.apps[id]?.showsOnlyInPiP == true ? "C5" : "C2.6")
                tx.emit(.sessionWasInterrupted(id, reason), rule: rule)
            default: break
            }
        }
        system.holder = holder
        let granted = holder != nil && holder != previous
        if let holder, granted {
            system.lastToken = GrantToken(system.lastToken.value + 1)
            tx.emit(.cameraGranted(systemID, holder, system.lastToken), rule: grantRule)
        }
        state.cameraSystems[systemID] = system
        for decision in running { tx.emit(decision.event, rule: decision.rule) }
        // S2
        if let holder, granted || tx.pressureChanged.contains(systemID) {
            switch system.pressure {
            case .serious: tx.emit(.throttleAdvised(systemID, holder, maxFrameRate: settings.seriousPressureMaxFrameRate))
            case .critical: tx.emit(.throttleAdvised(systemID, holder, maxFrameRate: settings.criticalPressureMaxFrameRate))
            default: break
            }
        }
    }
}
