extension PolicyEngine {
    /// The running apps of `device` (`Scene.isRunning`), in id order, from the engine's index: in
    /// proportion to what runs, not to what is installed.
    public func runningApps(of device: NodeID) -> [AppID] { index.runningApps(of: device) }

    /// The displays attached to `device`, in id order, from the engine's index.
    public func attachedDisplays(of device: NodeID) -> [NodeID] { index.attachedDisplays(device: device) }

    /// The camera systems `node` hosts, in id order, from the engine's index.
    public func cameraSystems(hostedBy node: NodeID) -> [CameraSystemID] { index.systems(hostedBy: node) }
}

/// Validating look-ups shared by the command handlers. They throw before any mutation.
extension PolicyEngine {
    /// A registered, alive device.
    func aliveDevice(_ device: NodeID) throws(Rejection) -> NodeRecord {
        guard let record = state.nodes[device] else { throw Rejection(.unknownNode, "unknown node \(device)") }
        guard record.kind == .device else { throw Rejection(.wrongNodeKind, "\(device) is not a device") }
        guard record.alive else { throw Rejection(.nodeNotAlive, "device \(device) is not alive") }
        return record
    }

    /// A registered, alive display.
    func aliveDisplay(_ display: NodeID) throws(Rejection) -> NodeRecord {
        guard let record = state.nodes[display] else { throw Rejection(.unknownNode, "unknown node \(display)") }
        guard record.kind == .display else { throw Rejection(.wrongNodeKind, "\(display) is not a display") }
        guard record.alive else { throw Rejection(.nodeNotAlive, "display \(display) is not alive") }
        return record
    }

    /// An installed app of an alive device.
    func existingApp(_ id: AppID) throws(Rejection) -> AppRecord {
        guard state.nodes[id.device] != nil else { throw Rejection(.unknownNode, "unknown node \(id.device)") }
        guard let app = state.apps[id] else { throw Rejection(.unknownApp, "unknown app \(id)") }
        _ = try aliveDevice(id.device)
        return app
    }

    /// An installed app whose process runs.
    func runningApp(_ id: AppID) throws(Rejection) -> AppRecord {
        let app = try existingApp(id)
        guard app.scene.isRunning else { throw Rejection(.illegalState, "app \(id) is not running") }
        return app
    }

    /// A screen an app of `device` can be shown on: the device or an alive display attached to it (L3).
    func validateScreen(_ screen: NodeID, device: NodeID) throws(Rejection) {
        if screen == device { return }
        guard let record = state.nodes[screen] else { throw Rejection(.unknownNode, "unknown screen \(screen)") }
        guard record.kind == .display else { throw Rejection(.wrongNodeKind, "\(screen) is not a display") }
        guard record.alive, record.attachedTo == device else {
            throw Rejection(.displayNotAttached, "display \(screen) is not attached to \(device)")
        }
    }

    func validateFrame(_ frame: Frame) throws(Rejection) {
        guard frame.width > 0, frame.height > 0 else { throw Rejection(.invalidArgument, "frame \(frame) has no area") }
    }

    /// C10: the camera system of `camera` if apps of `app.device` may use it now.
    func usableCameraSystem(_ camera: CameraID, by app: AppID) throws(Rejection) -> CameraSystemID {
        guard let system = state.cameraSystem(of: camera) else {
            throw Rejection(.unknownCamera, "unknown camera \(camera)")
        }
        guard let record = state.cameraSystems[system], record.available, state.isAlive(camera.host) else {
            throw Rejection(.cameraNotUsable, "camera \(camera) is not available")
        }
        switch system {
        case .builtIn(let device):
            guard device == app.device else {
                throw Rejection(.cameraNotUsable, "camera \(camera) belongs to another device than \(app.device)")
            }
        case .external:
            guard state.nodes[camera.host]?.attachedTo == app.device else {
                throw Rejection(.cameraNotUsable, "display camera \(camera) is not attached to \(app.device) (C10)")
            }
        }
        return system
    }
}
