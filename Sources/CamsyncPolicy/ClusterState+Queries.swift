/// Read helpers on the cluster model: visibility and multitasking (L6), roles (L5),
/// multitasking camera access (C3) and camera eligibility (C2). Shells, the engine
/// and the invariant checker all use these, so there is one definition of each rule.
extension ClusterState {
    // MARK: Nodes

    /// The device attributes of a registered device node.
    public func deviceAttributes(_ device: NodeID) -> DeviceAttributes? {
        guard let record = nodes[device], case .device(let attributes) = record.registration.attributes else { return nil }
        return attributes
    }

    /// Whether `node` is registered, alive and of the given kind.
    public func isAlive(_ node: NodeID, kind: NodeKind? = nil) -> Bool {
        guard let record = nodes[node], record.alive else { return false }
        return kind == nil || record.kind == kind
    }

    /// The displays attached to a device now, in id order.
    public func attachedDisplays(device: NodeID) -> [NodeID] {
        nodes.values.filter { $0.kind == .display && $0.attachedTo == device }.map(\.id).sorted()
    }

    /// The screens a device's apps can be shown on: the device itself and its attached, alive displays.
    public func screens(device: NodeID) -> [NodeID] {
        [device] + attachedDisplays(device: device).filter { isAlive($0) }
    }

    /// The device whose apps may use a camera system (C10): the device itself for built-in
    /// cameras, the device the display is attached to for a display camera.
    public func arbitrationDevice(of system: CameraSystemID) -> NodeID? {
        switch system {
        case .builtIn(let device): device
        case .external(let camera): nodes[camera.host]?.attachedTo
        }
    }

    // MARK: Apps

    /// The apps installed on a device, in id order.
    public func apps(of device: NodeID) -> [AppID] {
        apps.keys.filter { $0.device == device }.sorted()
    }

    /// L6: the apps visible on a device — a non-background scene on the device or its displays,
    /// plus the owner of an active, unstashed PiP window. In id order.
    public func visibleApps(device: NodeID) -> [AppID] {
        apps(of: device).filter { id in
            guard let app = apps[id] else { return false }
            return app.scene.isVisible || app.hasUnstashedActivePiP
        }
    }

    /// L6: two or more apps visible at once.
    public func isMultitasking(device: NodeID) -> Bool {
        var count = 0
        for (id, app) in apps where id.device == device && (app.scene.isVisible || app.hasUnstashedActivePiP) {
            count += 1
            if count >= 2 { return true }
        }
        return false
    }

    /// L5: the role the engine reports for an app (nil when not running).
    public func computedRole(of id: AppID) -> Role? {
        guard let app = apps[id], app.scene.isRunning else { return nil }
        switch app.scene {
        case .fullScreen, .splitPrimary, .stageWindow: return .primary
        case .splitSecondary, .slideOver: return .secondary
        case .background: return app.hasActivePiP ? .backgroundMedia : .background
        case .notRunning, .terminated: return nil
        }
    }

    // MARK: Cameras

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
    public func multitaskingCameraAccessEffective(app id: AppID) -> Bool {
        guard let app = apps[id] else { return false }
        if app.spec.isSystemCameraApp { return true }
        guard let session = app.session else { return false }
        return session.configuration.multitaskingCameraAccessEnabled && multitaskingCameraAccessSupported(app: id)
    }

    /// C2 steps 1–5 in order: why the app may not hold its session's camera, or nil when it
    /// is eligible (it may still wait because another session holds the camera, C2.6).
    public func eligibilityReason(app id: AppID) -> InterruptionReason? {
        guard let app = apps[id] else { return .videoDeviceNotAvailableInBackground }
        // 1. not visible and not the owner of an active PiP window
        if !app.scene.isVisible && !app.hasActivePiP { return .videoDeviceNotAvailableInBackground }
        // 2. its PiP window is stashed
        if app.hasStashedPiP { return .videoDeviceNotAvailableInBackground }
        let effective = multitaskingCameraAccessEffective(app: id)
        // 3. shows only in PiP without effective multitasking camera access [policy: reason]
        if app.showsOnlyInPiP && !effective { return .videoDeviceNotAvailableInBackground }
        // 4. the device is multitasking (L6) without effective multitasking camera access
        if !effective && isMultitasking(device: id.device) { return .videoDeviceNotAvailableWithMultipleForegroundApps }
        // 5. the camera system is shut down by pressure
        if let camera = app.session?.configuration.camera, let system = cameraSystem(of: camera),
           cameraSystems[system]?.pressure == .shutdown {
            return .videoDeviceNotAvailableDueToSystemPressure
        }
        return nil
    }

    /// C2 steps 1–6: the state a wanting session must be in given the current holder.
    public func expectedSessionState(app id: AppID) -> SessionState {
        guard let session = apps[id]?.session, session.wantsToRun else { return .stopped }
        if let reason = eligibilityReason(app: id) { return .interrupted(reason) }
        if let system = cameraSystem(of: session.configuration.camera), holder(of: system) == id { return .running }
        return .interrupted(.videoDeviceInUseByAnotherClient)
    }
}

extension AppRecord {
    /// The PiP window is active (stashed or not).
    public var hasActivePiP: Bool {
        if case .active = pip?.window { return true }
        return false
    }

    /// The PiP window is active and stashed (P5).
    public var hasStashedPiP: Bool {
        if case .active(_, _, true) = pip?.window { return true }
        return false
    }

    /// The PiP window is active and on screen (L6 counts its owner as visible).
    public var hasUnstashedActivePiP: Bool {
        if case .active(_, _, false) = pip?.window { return true }
        return false
    }

    /// The PiP window is suspended (P4).
    public var hasSuspendedPiP: Bool { pip?.window == .suspended }

    /// Not on screen through a scene, but owner of an active PiP window (C2.3, C5).
    public var showsOnlyInPiP: Bool { !scene.isVisible && hasActivePiP }
}
