/// Read helpers on the cluster model: nodes, screens, visibility and multitasking (L6) and
/// roles (L5). Shells, the engine and the invariant checker all use these, so there is one
/// definition of each rule.
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
        apps(of: device).filter { apps[$0]?.countsAsVisible == true }
    }

    /// L6: two or more apps visible at once.
    public func isMultitasking(device: NodeID) -> Bool {
        var count = 0
        for (id, app) in apps where id.device == device && app.countsAsVisible {
            count += 1
            if count >= 2 { return true }
        }
        return false
    }

    /// L6 over a device's apps given by the caller (the engine's index): two or more visible.
    func isMultitasking(among deviceApps: [AppID]) -> Bool {
        var count = 0
        for id in deviceApps where apps[id]?.countsAsVisible == true {
            count += 1
            if count >= 2 { return true }
        }
        return false
    }

    /// L5: the role the engine reports for an app (nil when not running).
    public func computedRole(of id: AppID) -> Role? { apps[id]?.computedRole }
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

    /// L5: the role the engine reports for the app (nil when not running).
    var computedRole: Role? {
        switch scene {
        case .fullScreen, .splitPrimary, .stageWindow: return .primary
        case .splitSecondary, .slideOver: return .secondary
        // L5, A8: PiP in background, or audio it may play in background.
        case .background: return hasActivePiP || playsBackgroundAudio ? .backgroundMedia : .background
        case .notRunning, .terminated: return nil
        }
    }

    /// L6: the app counts as visible on its device — a non-background scene, or the owner of an
    /// active, unstashed PiP window.
    var countsAsVisible: Bool { scene.isVisible || hasUnstashedActivePiP }

    /// The PiP window is suspended (P4).
    public var hasSuspendedPiP: Bool { pip?.window == .suspended }

    /// Not on screen through a scene, but owner of an active PiP window (C2.3, C5).
    public var showsOnlyInPiP: Bool { !scene.isVisible && hasActivePiP }
}
