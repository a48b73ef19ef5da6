/// Camera look-ups, multitasking camera access (C3) and eligibility (C2): the one definition
/// the engine's arbitration and the invariant checker share.
extension ClusterState {

    /// The camera system a camera belongs to, if the camera is known.
    public func cameraSystem(of camera: CameraID) -> CameraSystemID? {
        guard let host = nodes[camera.host] else { return nil }
        let system: CameraSystemID = host.kind == .device ? .builtIn(device: camera.host) : .external(camera)
        guard let record = cameraSystems[system], record.cameras.contains(camera) else { return nil }
        return system
    }

    /// C1: the app holding a camera system now.
    public func holder(of system: CameraSystemID) -> AppID? { cameraSystems[system]?.holder }

    /// C7: a session's observable state (nil when the app has no session).
    public func sessionState(of app: AppID) -> SessionState? { apps[app]?.session?.state }

    /// C3: `isMultitaskingCameraAccessSupported` as the app reads it — device OS ≥ 16, the
    /// hardware supports it, and (deployment target ≥ 16 or the entitlement).
    public func multitaskingCameraAccessSupported(app id: AppID) -> Bool {
        guard let device = deviceAttributes(id.device), let app = apps[id] else { return false }
        return device.osMajor >= 16 && device.multitaskingCameraSupported
            && (app.spec.deploymentTarget >= 16 || app.spec.hasMultitaskingCameraAccessEntitlement)
    }

    /// C3: multitaskingCameraAccessSupported and the session enabled it. Camera.app
    /// (`isSystemCameraApp`) always has it **[policy]**: the system camera runs beside a PiP window.
    /// C13: a session run by ARKit never has it, so it is interrupted with reason 4 whenever its
    /// device multitasks.
    public func multitaskingCameraAccessEffective(app id: AppID) -> Bool {
        guard let app = apps[id] else { return false }
        // C13: a session run by ARKit never has it, whoever runs it.
        if app.session?.configuration.runByARKit == true { return false }
        if app.spec.isSystemCameraApp { return true }
        guard let session = app.session else { return false }
        return session.configuration.multitaskingCameraAccessEnabled && multitaskingCameraAccessSupported(app: id)
    }

    /// C2 steps 1–5 in order, with A7 between 4 and 5: why the app may not hold its session's
    /// camera, or nil when it is eligible (it may still wait because another session holds the
    /// camera, C2.6).
    public func eligibilityReason(app id: AppID) -> InterruptionReason? {
        eligibilityReason(app: id, deviceApps: nil)
    }

    /// C2 steps 1–5, with the apps of the app's device given (in any order) when the caller has
    /// them at hand; nil finds them by scanning all apps.
    func eligibilityReason(app id: AppID, deviceApps: [AppID]?) -> InterruptionReason? {
        ineligibility(app: id, deviceApps: deviceApps)?.reason
    }

    /// C2 steps 1–5 in order, with A7 between 4 and 5: the reason and the rule that gives it
    /// (`C2.1`…`C2.5`, `C13` for an ARKit session, `A7`), or nil when the app is eligible.
    public func ineligibility(app id: AppID) -> Ineligibility? {
        ineligibility(app: id, deviceApps: nil)
    }

    func ineligibility(app id: AppID, deviceApps: [AppID]?) -> Ineligibility? {
        guard let app = apps[id] else { return Ineligibility(.videoDeviceNotAvailableInBackground, rule: "C2.1") }
        // 1. not visible and not the owner of an active PiP window
        if !app.scene.isVisible && !app.hasActivePiP { return Ineligibility(.videoDeviceNotAvailableInBackground, rule: "C2.1") }
        // 2. its PiP window is stashed
        if app.hasStashedPiP { return Ineligibility(.videoDeviceNotAvailableInBackground, rule: "C2.2") }
        let effective = multitaskingCameraAccessEffective(app: id)
        // 3. shows only in PiP without effective multitasking camera access [policy: reason]
        if app.showsOnlyInPiP && !effective { return Ineligibility(.videoDeviceNotAvailableInBackground, rule: "C2.3") }
        // 4. the device is multitasking (L6) without effective multitasking camera access (C13: never for ARKit)
        if !effective && (deviceApps.map(isMultitasking(among:)) ?? isMultitasking(device: id.device)) {
            return Ineligibility(.videoDeviceNotAvailableWithMultipleForegroundApps,
                                 rule: app.session?.configuration.runByARKit == true ? "C13" : "C2.4")
        }
        // A7 (between 4 and 5): the session records audio while another app holds the microphone
        if app.session?.configuration.audioInput == true,
           let holder = microphoneHolder(device: id.device, deviceApps: deviceApps), holder != id {
            return Ineligibility(.audioDeviceInUseByAnotherClient, rule: "A7")
        }
        // 5. the camera system is shut down by pressure
        if let camera = app.session?.configuration.camera, let system = cameraSystem(of: camera),
           cameraSystems[system]?.pressure == .shutdown {
            return Ineligibility(.videoDeviceNotAvailableDueToSystemPressure, rule: "C2.5")
        }
        return nil
    }

    /// C2 steps 1–6: the state a wanting session must be in given the current holder.
    public func expectedSessionState(app id: AppID) -> SessionState {
        expectedSessionState(app: id, deviceApps: nil)
    }

    func expectedSessionState(app id: AppID, deviceApps: [AppID]?) -> SessionState {
        guard let session = apps[id]?.session, session.wantsToRun else { return .stopped }
        if let reason = eligibilityReason(app: id, deviceApps: deviceApps) { return .interrupted(reason) }
        if let system = cameraSystem(of: session.configuration.camera), holder(of: system) == id { return .running }
        return .interrupted(.videoDeviceInUseByAnotherClient)
    }
}

/// Why a session may not hold its camera (C2 steps 1–5, A7): the interruption reason and the rule.
public struct Ineligibility: Hashable, Sendable {
    public var reason: InterruptionReason
    public var rule: RuleID
    public init(_ reason: InterruptionReason, rule: RuleID) {
        self.reason = reason
        self.rule = rule
    }
}
