/// Properties that hold after every command. Tests check them after each step of long
/// random runs; a shell can check them after loading a snapshot.
extension ClusterState {
    /// Every broken invariant, described; empty when the state is consistent.
    public func invariantViolations(settings: PolicySettings) -> [String] {
        var violations: [String] = []
        // Every app and camera system in id order, sorted once for the passes below; the apps of
        // each device, in id order, found once (not per app or per device).
        let appIDs = apps.keys.sorted(), systemIDs = cameraSystems.keys.sorted()
        var appsByDevice: [NodeID: [AppID]] = [:]
        for id in appIDs { appsByDevice[id.device, default: []].append(id) }
        // C1: at most one holder per camera system, and it is running.
        for systemID in systemIDs {
            guard let system = cameraSystems[systemID], let holder = system.holder else { continue }
            guard let session = apps[holder]?.session else {
                violations.append("C1: holder \(holder) of \(systemID) has no session"); continue
            }
            if !session.wantsToRun || session.state != .running {
                violations.append("C1: holder \(holder) of \(systemID) is \(session.state), wants \(session.wantsToRun)")
            }
            if cameraSystem(of: session.configuration.camera) != systemID {
                violations.append("C1: holder \(holder) of \(systemID) is configured for another camera")
            }
            if !system.available { violations.append("C10: unavailable \(systemID) has holder \(holder)") }
        }
        // C10, K1: a camera system is available exactly while its host is alive and, for a display
        // camera, the display is attached.
        for systemID in systemIDs {
            guard let system = cameraSystems[systemID] else { continue }
            let host = nodes[systemID.host]
            let expected: Bool
            switch systemID {
            case .builtIn: expected = host?.alive == true
            case .external: expected = host?.alive == true && host?.attachedTo != nil
            }
            if system.available != expected { violations.append("C10: \(systemID) available \(system.available), expected \(expected)") }
        }
        for id in appIDs {
            guard let app = apps[id] else { continue }
            let device = nodes[id.device]
            // K1: a dead device runs nothing.
            if device?.alive != true && app.scene.isRunning { violations.append("K1: \(id) runs on a dead device") }
            // L5
            if app.role != computedRole(of: id) {
                violations.append("L5: \(id) has role \(String(describing: app.role)), expected \(String(describing: computedRole(of: id)))")
            }
            // P9
            if app.role == .backgroundMedia && app.memoryFootprintMB > settings.backgroundMediaMemoryLimitMB {
                violations.append("P9: backgroundMedia \(id) uses \(app.memoryFootprintMB) MB")
            }
            // L4
            if app.spec.requiresFullScreen {
                switch app.scene {
                case .splitPrimary, .splitSecondary, .slideOver, .stageWindow: violations.append("L4: \(id) is \(app.scene)")
                default: break
                }
            }
            if case .stageWindow(let window) = app.scene {
                if device?.stageManagerEnabled != true { violations.append("L3: \(id) has a stage window with Stage Manager off") }
                if window.screen != id.device && nodes[window.screen]?.attachedTo != id.device {
                    violations.append("L3: \(id) has a window on \(window.screen), not attached to \(id.device)")
                }
            }
            // C1, C2, C7: every wanting session runs as the holder or waits with the C2 reason.
            if let session = app.session {
                if !app.scene.isRunning { violations.append("\(id) is not running but has a session") }
                let expected = expectedSessionState(app: id, deviceApps: appsByDevice[id.device] ?? [])
                if session.state != expected {
                    violations.append("C2: \(id) is \(session.state), expected \(expected)")
                }
                if session.state == .running, let system = cameraSystem(of: session.configuration.camera),
                   holder(of: system) != id {
                    violations.append("C1: \(id) runs without holding \(system)")
                }
                if session.recording != nil && session.state != .running {
                    violations.append("R1: \(id) records without a running session")
                }
            }
            // P4–P6
            if let pip = app.pip {
                if (app.hasActivePiP || app.hasSuspendedPiP) && !app.scene.isRunning {
                    violations.append("P: \(id) has a PiP window but is not running")
                }
                if pip.restoreDeadline != nil && !app.hasActivePiP { violations.append("P6: \(id) restores without an active window") }
                if app.hasSuspendedPiP != (pip.suspendedAt != nil) { violations.append("P4: \(id) suspension order inconsistent") }
                if case .active(let screen, _, _) = pip.window, screen != id.device, nodes[screen]?.attachedTo != id.device {
                    violations.append("P8: \(id) PiP window on \(screen), not attached to \(id.device)")
                }
            }
        }
        for device in nodes.keys.sorted() where nodes[device]?.kind == .device {
            let owned = appsByDevice[device] ?? []
            let active = owned.filter { apps[$0]?.hasActivePiP == true }
            if active.count > 1 { violations.append("P4: \(device) has \(active.count) active PiP windows") }
            if active.isEmpty && owned.contains(where: { apps[$0]?.hasSuspendedPiP == true }) {
                violations.append("P4: \(device) has a suspended PiP window but none active")
            }
            // L1
            let scenes = owned.compactMap { apps[$0]?.scene }
            let full = scenes.filter { $0 == .fullScreen }.count
            let primary = scenes.filter { $0 == .splitPrimary }.count
            let secondary = scenes.filter { $0 == .splitSecondary }.count
            let slide = scenes.filter { $0 == .slideOver }.count
            if full > 1 || primary > 1 || secondary > 1 || slide > 1 || primary != secondary || (full == 1 && primary == 1) {
                violations.append("L1: \(device) layout has \(full) full, \(primary)+\(secondary) split, \(slide) slide over")
            }
        }
        // A1–A8
        violations += audioInvariantViolations(appsByDevice: appsByDevice)
        // C11–C14
        violations += captureGraphInvariantViolations(appIDs: appIDs)
        return violations
    }
}
