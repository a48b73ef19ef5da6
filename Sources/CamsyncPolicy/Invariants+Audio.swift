/// Audio invariants (A1–A8), checked with the others by `invariantViolations(settings:)`.
extension ClusterState {
    /// Every broken audio invariant on the devices given with their apps (in id order).
    func audioInvariantViolations(appsByDevice: [NodeID: [AppID]]) -> [String] {
        var violations: [String] = []
        for device in appsByDevice.keys.sorted() {
            let deviceApps = appsByDevice[device] ?? []
            // A3: at most one active non-mixable session per device.
            let nonMixables = deviceApps.filter { id in
                guard let audio = apps[id]?.audioSession else { return false }
                return audio.isActive && !audio.configuration.isMixable
            }
            if nonMixables.count > 1 { violations.append("A3: \(device) has active non-mixable sessions \(nonMixables)") }
            let nonMixable = nonMixables.first
            let duckers = duckingSessions(among: deviceApps)
            for id in deviceApps {
                guard let app = apps[id] else { continue }
                let audio = app.audioSession
                let configuration = audio.configuration
                // A1: only possible category / option pairs, kept as AVAudioSession keeps them.
                if let problem = configuration.incompatibility { violations.append("A1: \(id): \(problem)") }
                if configuration.duckOthers && !configuration.mixWithOthers { violations.append("A1: \(id) ducks without mixWithOthers") }
                // A8: only a running app plays; off screen only with background audio allowed.
                if audio.isActive && !app.scene.isRunning { violations.append("A8: \(id) is not running but its audio session is active") }
                if audio.isActive && app.scene.isRunning && !app.countsAsVisible && !app.mayPlayAudioInBackground {
                    violations.append("A8: \(id) plays audio off screen without background audio")
                }
                // A5: the hint is true exactly while another app's non-mixable session is active.
                let hint = secondaryAudioShouldBeSilenced(app: id, nonMixable: nonMixable)
                if audio.secondaryAudioShouldBeSilencedHint != hint {
                    violations.append("A5: \(id) silence hint \(audio.secondaryAudioShouldBeSilencedHint), expected \(hint)")
                }
                // A4
                let ducked = isDucked(app: id, duckers: duckers)
                if audio.isDucked != ducked { violations.append("A4: \(id) ducked \(audio.isDucked), expected \(ducked)") }
                // A3, A6: an interrupted session is inactive and waits for the device's active non-mixable session.
                if let interrupter = audio.interruptedBy {
                    if audio.isActive { violations.append("A6: \(id) is active but interrupted by \(interrupter)") }
                    if interrupter != nonMixable || interrupter == id {
                        violations.append("A6: \(id) waits for \(interrupter), which does not play non-mixable audio")
                    }
                }
                if !app.scene.isRunning && audio != AudioSessionRecord(declared: app.spec.audioSessionCategory) {
                    violations.append("A8: \(id) is not running but keeps audio session state \(audio)")
                }
            }
        }
        return violations
    }
}

extension ClusterState {
    /// The audio invariants (A1–A8) alone, over every device (the soak checker runs them on each replica).
    public func audioInvariantViolations() -> [String] {
        var appsByDevice: [NodeID: [AppID]] = [:]
        for id in apps.keys.sorted() { appsByDevice[id.device, default: []].append(id) }
        return audioInvariantViolations(appsByDevice: appsByDevice)
    }
}
