/// Nodes joining, re-joining and leaving (K1, K2) and displays attaching / detaching (L3, C10).
extension PolicyEngine {
    // MARK: Registration

    func validateRegistration(_ registration: NodeRegistration) throws(Rejection) {
        try registration.validate()
        // SPEC §1: `attachedTo` names the device the display's configuration names. It may join
        // later: the display then stays detached and attaches itself by its own command.
        if case .display(let display) = registration.attributes, let device = display.attachedTo, let record = state.nodes[device],
           record.kind != .device {
            throw Rejection(.wrongNodeKind, "\(device) is not a device")
        }
        if let existing = state.nodes[registration.node], existing.kind != registration.kind {
            throw Rejection(.wrongNodeKind, "\(registration.node) is registered as a \(existing.kind.rawValue)")
        }
    }

    /// K2: a first registration creates the node; a known node re-registers. For an alive node
    /// the coordinator's state wins (new apps and cameras are added; an identical registration
    /// is a no-op). For a dead node, the node's `assertions` re-create what it still runs.
    mutating func registerNode(_ registration: NodeRegistration, _ tx: inout Transaction) throws(Rejection) {
        try validateRegistration(registration)
        let id = registration.node
        let existing = state.nodes[id]
        if let existing, existing.alive, existing.registration == registration { return }
        let isNew = existing == nil
        let wasAlive = existing?.alive == true
        var record = existing ?? NodeRecord(
            id: id, registration: registration, alive: true, attachedTo: nil, stageManagerEnabled: false,
            autoPiPEnabled: true, layoutDirection: .leftToRight, registeredAt: tx.now)
        record.registration = registration
        record.alive = true
        record.registeredAt = tx.now
        if case .device(let device) = registration.attributes {
            if isNew {
                record.stageManagerEnabled = device.stageManagerEnabled && device.stageManagerSupported
                record.autoPiPEnabled = device.autoPiPEnabled
                record.layoutDirection = device.layoutDirection
            } else if !device.stageManagerSupported {
                record.stageManagerEnabled = false
            }
        }
        let stageManagerTurnedOff = existing?.stageManagerEnabled == true && !record.stageManagerEnabled
        state.nodes[id] = record
        index.noteRegistration(id, from: existing?.registration, to: registration)
        tx.affect(id)
        tx.emit(isNew ? .nodeJoined(id, registration.kind) : .nodeRejoined(id, registration.kind))
        if stageManagerTurnedOff {
            // L3: a device that no longer supports Stage Manager keeps no stage windows (as setStageManager(off)).
            tx.emit(.deviceSettingsChanged(id))
            for app in index.runningApps(of: id) {
                if case .stageWindow = state.apps[app]?.scene { moveToBackground(app, cause: nil, &tx) }
            }
        }

        switch registration.attributes {
        case .device(let device):
            addCameras(device.cameras, system: { _ in .builtIn(device: id) }, host: id, available: true)
            for spec in device.apps.sorted(by: { $0.bundleID < $1.bundleID }) {
                let app = AppID(device: id, bundleID: spec.bundleID)
                if state.apps[app] == nil {
                    state.apps[app] = AppRecord(id: app, spec: spec, memoryFootprintMB: spec.memoryFootprintMB)
                    index.noteInstalled(app)
                    tx.emit(.appInstalled(app))
                }
            }
            if !wasAlive { applyAssertions(registration.assertions, device: id, &tx) }
            if wasAlive { removeImpossibleCaptureGraphs(device: id, &tx) }
        case .display(let display):
            if !wasAlive, let device = display.attachedTo, state.isAlive(device, kind: .device) {
                attachUnchecked(id, to: device, &tx)
            }
            let attached = state.nodes[id]?.attachedTo != nil
            addCameras(display.cameras, system: { .external($0) }, host: id, available: attached)
        }
    }

    /// Adds camera systems or cameras the coordinator does not know yet. Known systems keep
    /// their holder, pressure and last token (C8: tokens never go back).
    private mutating func addCameras(_ cameras: [CameraSpec], system: (CameraID) -> CameraSystemID, host: NodeID, available: Bool) {
        for spec in cameras {
            let camera = CameraID(host: host, name: spec.name)
            let systemID = system(camera)
            if var record = state.cameraSystems[systemID] {
                if !record.cameras.contains(camera) { record.cameras.append(camera) }
                record.available = available
                state.cameraSystems[systemID] = record
            } else {
                state.cameraSystems[systemID] = CameraSystemRecord(id: systemID, cameras: [camera], available: available)
                index.addSystem(systemID)
            }
        }
        for systemID in index.systems(hostedBy: host) {
            state.cameraSystems[systemID]?.available = available
        }
    }

    /// K2: re-creates what a returning device still runs, in bundle id order. Only apps the
    /// coordinator has no running state for are touched; a part that is no longer valid
    /// (a layout slot already taken, a camera no longer usable, PiP unsupported) is dropped
    /// and the app stays in the background [policy].
    private mutating func applyAssertions(_ assertions: [AppAssertion], device: NodeID, _ tx: inout Transaction) {
        guard let node = state.nodes[device] else { return }
        for assertion in assertions.sorted(by: { $0.bundleID < $1.bundleID }) {
            let id = AppID(device: device, bundleID: assertion.bundleID)
            guard let app = state.apps[id], !app.scene.isRunning, assertion.scene.isRunning else { continue }
            setScene(id, placeableScene(id, app, assertion.scene, node) ?? .background, &tx)
            if let configuration = assertion.session,
               let (_, cost, supported) = try? validateConfiguration(id, configuration) {
                setConfiguration(id, configuration, cost: cost, supported: supported, &tx)
                if assertion.sessionWantsToRun {
                    state.updateApp(id) { $0.session?.wantsToRun = true }
                }
            }
            if let setup = assertion.pip, state.deviceAttributes(device)?.pipSupported == true {
                state.updateApp(id) { $0.pip = PiPRecord(setup: setup) }
                index.noteRestoreEnded(id)
                tx.emit(.pipControllerChanged(id))
            }
        }
        // A lone half of a split pair fills the screen.
        let current = layout(of: device)
        if current.fullScreen == nil, (current.primary == nil) != (current.secondary == nil),
           let lone = current.primary ?? current.secondary {
            setScene(lone, .fullScreen, &tx)
        }
    }

    /// The asserted scene if it fits the device's layout now (L1–L4), else nil.
    private func placeableScene(_ id: AppID, _ app: AppRecord, _ scene: Scene, _ node: NodeRecord) -> Scene? {
        let current = layout(of: id.device)
        switch scene {
        case .background: return .background
        case .fullScreen:
            return current.fullScreen == nil && current.primary == nil && current.secondary == nil ? scene : nil
        case .splitPrimary, .splitSecondary:
            guard !app.spec.requiresFullScreen, !node.stageManagerEnabled, current.fullScreen == nil else { return nil }
            return (scene == .splitPrimary ? current.primary : current.secondary) == nil ? scene : nil
        case .slideOver:
            guard !app.spec.requiresFullScreen, !node.stageManagerEnabled, current.slideOver == nil else { return nil }
            return scene
        case .stageWindow(let window):
            guard (try? validateStageWindow(id, app, window)) != nil else { return nil }
            return scene
        case .notRunning, .terminated: return nil
        }
    }

    // MARK: Leaving (K1)

    /// K1: a dead (or unregistered) device's apps terminate, its displays detach and its
    /// built-in cameras become unavailable. A dead display detaches: its stage windows and PiP
    /// windows return to the device screen and its cameras are disconnected (C10). The node stays
    /// listed, dead, so tokens (C8) and the R1 fact survive a return. Idempotent.
    mutating func removeNode(_ id: NodeID, reason: NodeLeaveReason, _ tx: inout Transaction) throws(Rejection) {
        guard let record = state.nodes[id] else { throw Rejection(.unknownNode, "unknown node \(id)") }
        guard record.alive else { return }
        state.nodes[id]?.alive = false
        tx.affect(id)
        tx.emit(.nodeLeft(id, reason))
        switch record.kind {
        case .device:
            for app in index.runningApps(of: id) { terminateApp(app, reason: .deviceGone, &tx) }
            for display in index.attachedDisplays(device: id) { detachUnchecked(display, &tx) }
        case .display:
            if record.attachedTo != nil { detachUnchecked(id, &tx) }
        }
        for systemID in index.systems(hostedBy: id) {
            state.cameraSystems[systemID]?.available = false
        }
    }

    // MARK: Displays

    /// A new command that would change nothing and is refused rather than logged under a sequence of
    /// its own [policy]: attaching a display to the device it is attached to already, and detaching a
    /// display that is attached to none. The coordinator asks before it applies a command it has not
    /// logged yet; a log that holds such a command (one written before this refusal) still replays,
    /// since `apply` keeps accepting it as a no-op.
    public func noOpRefusal(_ command: Command) -> Rejection? {
        switch command {
        case .attachDisplay(let display, let device):
            guard let record = state.nodes[display], record.alive, record.kind == .display, record.attachedTo == device else { return nil }
            return Rejection(.alreadyExists, "\(display) is already attached to \(device): nothing to do")
        case .detachDisplay(let display):
            guard let record = state.nodes[display], record.alive, record.kind == .display, record.attachedTo == nil else { return nil }
            return Rejection(.displayNotAttached, "\(display) is not attached to a device: nothing to do")
        default:
            return nil
        }
    }

    mutating func attachDisplay(_ display: NodeID, to device: NodeID, _ tx: inout Transaction) throws(Rejection) {
        let record = try aliveDisplay(display)
        _ = try aliveDevice(device)
        if record.attachedTo == device { return }
        attachUnchecked(display, to: device, &tx)
    }

    private mutating func attachUnchecked(_ display: NodeID, to device: NodeID, _ tx: inout Transaction) {
        if state.nodes[display]?.attachedTo != nil { detachUnchecked(display, &tx) }
        state.nodes[display]?.attachedTo = device
        index.moveDisplay(display, from: nil, to: device)
        for systemID in index.systems(hostedBy: display) {
            state.cameraSystems[systemID]?.available = state.nodes[display]?.alive == true
        }
        tx.affect(display)
        tx.affect(device)
        tx.emit(.displayAttached(display: display, device: device))
    }

    mutating func detachDisplayCommand(_ display: NodeID, _ tx: inout Transaction) throws(Rejection) {
        let record = try aliveDisplay(display)
        guard record.attachedTo != nil else { return }
        detachUnchecked(display, &tx)
    }

    /// L3: the display's stage windows return to the device screen (keeping their frames) and so
    /// do PiP windows shown on it [policy]; C10: its cameras' sessions are disconnected.
    private mutating func detachUnchecked(_ display: NodeID, _ tx: inout Transaction) {
        guard let device = state.nodes[display]?.attachedTo else { return }
        state.nodes[display]?.attachedTo = nil
        index.moveDisplay(display, from: device, to: nil)
        tx.affect(display)
        tx.affect(device)
        tx.emit(.displayDetached(display: display, device: device))
        for id in index.runningApps(of: device) {
            guard let app = state.apps[id] else { continue }
            if case .stageWindow(let window) = app.scene, window.screen == display {
                setScene(id, .stageWindow(StageWindow(screen: device, frame: window.frame)), &tx)
            }
            if case .active(display, let frame, let stashed)? = app.pip?.window {
                state.updateApp(id) { $0.pip?.window = .active(screen: device, frame: frame, stashed: stashed) }
                tx.emit(.pipMoved(id, screen: device, frame: frame))
            }
        }
        for systemID in index.systems(hostedBy: display) {
            disconnectSessions(of: systemID, &tx)
            state.cameraSystems[systemID]?.available = false
        }
    }
}

extension NodeRegistration {
    /// The rules a registration must meet whatever the cluster holds: the engine checks them at every
    /// registration (then what the cluster holds: a display's device, a node's kind), and node
    /// configs, topologies and scenario files are checked against them before anything starts.
    public func validate() throws(Rejection) {
        guard !node.rawValue.isEmpty else { throw Rejection(.invalidArgument, "empty node id") }
        switch attributes {
        case .device(let device):
            guard (9...26).contains(device.osMajor) else { throw Rejection(.invalidArgument, "OS major \(device.osMajor) is not in 9…26") }
            let bundles = device.apps.map(\.bundleID)
            guard Set(bundles).count == bundles.count, !bundles.contains("") else {
                throw Rejection(.invalidArgument, "app bundle ids must be unique and non-empty")
            }
            guard device.apps.allSatisfy({ $0.memoryFootprintMB >= 0 }) else {
                throw Rejection(.invalidArgument, "negative memory footprint")
            }
            try Self.validateCameras(device.cameras)
            // C14: only models with a LiDAR scanner have the LiDAR Depth Camera.
            if !device.lidarDepthCameraSupported, let lidar = device.cameras.first(where: { $0.position == .lidarDepth }) {
                throw Rejection(.invalidArgument,
                                "\(device.model) has no LiDAR scanner, so no LiDAR Depth Camera '\(lidar.name)' (C14)")
            }
        case .display(let display):
            try Self.validateCameras(display.cameras)
        }
    }

    private static func validateCameras(_ cameras: [CameraSpec]) throws(Rejection) {
        let names = cameras.map(\.name)
        guard Set(names).count == names.count, !names.contains("") else {
            throw Rejection(.invalidArgument, "camera names must be unique and non-empty")
        }
    }
}
