/// Audio sessions (A1–A8), arbitrated per device. Each rule has one place:
///
/// | rule | where |
/// |---|---|
/// | A1 category, options, mixability; layout never touches them | `setAudioCategory`, `AudioSessionConfiguration` |
/// | A2 activation is the app's action; non-mixable from background refused | `checkAudioStart` |
/// | A3 a non-mixable activation interrupts the other non-mixable session | `interruptOtherAudio` |
/// | A4 ducking | `refreshAudio` (`ClusterState.isDucked`) |
/// | A5 secondary-audio silence hint | `refreshAudio` (`ClusterState.secondaryAudioShouldBeSilenced`) |
/// | A6 interruption ends when the interrupter's session ends | `refreshAudio` |
/// | A7 the microphone holder interrupts capture with audio input (reason 2) | `ClusterState.eligibilityReason` (C2, after step 4) |
/// | A8 background audio, backgroundMedia role | `suspendBackgroundAudio`, `AppRecord.computedRole` |
extension PolicyEngine {
    // MARK: Commands

    /// A1: `setCategory(_:options:)`. An impossible pair is refused; on an active session the new
    /// configuration counts as an activation (A2, A8 checks; A3 when it becomes non-mixable).
    mutating func setAudioCategory(_ id: AppID, _ configuration: AudioSessionConfiguration, _ tx: inout Transaction) throws(Rejection) {
        let app = try runningApp(id)
        if let problem = configuration.incompatibility {
            throw Rejection(.incompatibleCategoryOptions, "\(id): \(problem) (A1)")
        }
        let configuration = configuration.normalized
        let session = app.audioSession
        if session.configuration == configuration { return }
        if session.isActive { try checkAudioStart(id, app, configuration, alreadyPlaying: true) }
        state.updateApp(id) { $0.audioSession.configuration = configuration }
        tx.affect(id.device)
        tx.emit(.audioSessionConfigured(id, configuration))
        if session.isActive && !configuration.isMixable { interruptOtherAudio(by: id, &tx) }
    }

    /// A2: `setActive(true)`, the app's own action when the user first uses its audio.
    /// A3: a non-mixable activation interrupts the other active non-mixable session of the device.
    mutating func activateAudioSession(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try runningApp(id)
        let session = app.audioSession
        if session.isActive { return }
        try checkAudioStart(id, app, session.configuration, alreadyPlaying: false)
        state.updateApp(id) { $0.audioSession.isActive = true }
        // Reactivating by its own action ends the app's wait for an interruption's end (A6).
        state.updateApp(id) { $0.audioSession.interruptedBy = nil }
        tx.affect(id.device)
        tx.emit(.audioSessionActivated(id))
        if !session.configuration.isMixable { interruptOtherAudio(by: id, &tx) }
    }

    /// A6: `setActive(false, options: .notifyOthersOnDeactivation)`; the sessions this one
    /// interrupted get their interruption's end when the engine settles.
    mutating func deactivateAudioSession(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.audioSession.isActive else { return }
        state.updateApp(id) { $0.audioSession.isActive = false }
        tx.affect(id.device)
        tx.emit(.audioSessionDeactivated(id))
    }

    // MARK: Rules

    /// A2, A8: whether an app may start audio with `configuration` now. On screen (a visible scene
    /// or an unstashed PiP window) it may. Off screen it needs the background mode and a playback /
    /// playAndRecord category (A8, `cannotStartPlaying`), and a non-mixable session must already be
    /// playing (A2, `cannotInterruptOthers` [policy: AVFoundation behaviour]).
    func checkAudioStart(_ id: AppID, _ app: AppRecord, _ configuration: AudioSessionConfiguration,
                         alreadyPlaying: Bool) throws(Rejection) {
        if app.countsAsVisible { return }
        guard app.spec.backgroundModeAudioAirPlayPiP && configuration.allowsBackgroundAudio else {
            throw Rejection(.cannotStartPlaying,
                            "\(id) is not on screen and may not play audio in background: it needs the audio background mode and category playback or playAndRecord (A8)")
        }
        if !configuration.isMixable && !alreadyPlaying {
            throw Rejection(.cannotInterruptOthers,
                            "\(id) is not on screen: a non-mixable (\(configuration.category.rawValue)) session cannot be activated from background (A2)")
        }
    }

    /// A3: the other active non-mixable session of the device (at most one) becomes inactive,
    /// interrupted by `id`. The sessions it had interrupted now wait for `id` instead
    /// [policy: they end their interruption when the audio is free again, A6].
    mutating func interruptOtherAudio(by id: AppID, _ tx: inout Transaction) {
        let deviceApps = index.runningApps(of: id.device)
        for other in deviceApps where other != id {
            guard let audio = state.apps[other]?.audioSession, audio.isActive, !audio.configuration.isMixable else { continue }
            state.updateApp(other) { $0.audioSession.isActive = false }
            state.updateApp(other) { $0.audioSession.interruptedBy = id }
            tx.emit(.audioInterruptionBegan(other, .default))
            for waiting in deviceApps where state.apps[waiting]?.audioSession.interruptedBy == other {
                state.updateApp(waiting) { $0.audioSession.interruptedBy = id }
            }
        }
    }

    /// A8 (settle, before roles): an active session whose app is off screen and may not play in
    /// background is interrupted (`appWasSuspended`). Layout never changes the configuration (A1).
    mutating func suspendBackgroundAudio(_ tx: inout Transaction) {
        for device in tx.affectedDevices(in: state) {
            for id in index.runningApps(of: device) {
                guard let app = state.apps[id], app.audioSession.isActive, app.scene.isRunning,
                      !app.countsAsVisible, !app.mayPlayAudioInBackground else { continue }
                state.updateApp(id) { $0.audioSession.isActive = false }
                tx.emit(.audioInterruptionBegan(id, .appWasSuspended))
            }
        }
    }

    /// A4, A5, A6 (settle): for every app of the touched devices, in id order — an interruption
    /// whose interrupter no longer plays non-mixable audio ends with `shouldResume: true` (A6);
    /// ducking follows the active `duckOthers` sessions (A4); the silence hint follows the active
    /// non-mixable session (A5).
    mutating func refreshAudio(_ tx: inout Transaction) {
        for device in tx.affectedDevices(in: state) {
            let deviceApps = index.runningApps(of: device)
            let nonMixable = state.activeNonMixableSession(device: device, deviceApps: deviceApps)
            let duckers = state.duckingSessions(among: deviceApps)
            for id in deviceApps {
                guard let old = state.apps[id]?.audioSession else { continue }
                var new = old
                if let interrupter = old.interruptedBy, interrupter != nonMixable {
                    new.interruptedBy = nil
                    tx.emit(.audioInterruptionEnded(id, shouldResume: true))
                }
                new.isDucked = state.isDucked(app: id, duckers: duckers)
                if new.isDucked != old.isDucked { tx.emit(new.isDucked ? .audioDuckingBegan(id) : .audioDuckingEnded(id)) }
                new.secondaryAudioShouldBeSilencedHint = state.secondaryAudioShouldBeSilenced(app: id, nonMixable: nonMixable)
                if new.secondaryAudioShouldBeSilencedHint != old.secondaryAudioShouldBeSilencedHint {
                    tx.emit(new.secondaryAudioShouldBeSilencedHint ? .secondaryAudioSilenceHintBegan(id) : .secondaryAudioSilenceHintEnded(id))
                }
                if new != old { state.updateApp(id) { $0.audioSession = new } }
            }
        }
    }

    /// A6, A8: a terminated app's audio session is gone; the next launch starts from the declared
    /// category, inactive. The sessions it interrupted get their end when the engine settles.
    mutating func endAudioSession(_ id: AppID) {
        guard let spec = state.apps[id]?.spec else { return }
        state.updateApp(id) { $0.audioSession = AudioSessionRecord(declared: spec.audioSessionCategory) }
    }
}
