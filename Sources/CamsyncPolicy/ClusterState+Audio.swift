/// Read helpers for audio sessions (A1–A8): the one definition of each audio rule that the
/// engine, the invariant checker and the shells share.
extension ClusterState {
    /// A3: the app whose active non-mixable session plays on a device (at most one), given the
    /// device's apps (the engine's index) or, with nil, found by scanning all apps.
    public func activeNonMixableSession(device: NodeID, deviceApps: [AppID]? = nil) -> AppID? {
        let candidates = deviceApps ?? apps(of: device)
        return candidates.first { id in
            guard let audio = apps[id]?.audioSession else { return false }
            return audio.isActive && !audio.configuration.isMixable
        }
    }

    /// A7: the app holding a device's microphone — an active, non-mixable `record` or
    /// `playAndRecord` session [policy: who holds the microphone].
    public func microphoneHolder(device: NodeID, deviceApps: [AppID]? = nil) -> AppID? {
        guard let id = activeNonMixableSession(device: device, deviceApps: deviceApps),
              apps[id]?.audioSession.configuration.usesMicrophone == true else { return nil }
        return id
    }

    /// A5: `secondaryAudioShouldBeSilencedHint` for a running app: another app's non-mixable
    /// session is active on its device.
    public func secondaryAudioShouldBeSilenced(app id: AppID, nonMixable: AppID?) -> Bool {
        guard let app = apps[id], app.scene.isRunning, let nonMixable else { return false }
        return nonMixable != id
    }

    /// A4: an active mixable session is ducked while another app's active session has `duckOthers`.
    public func isDucked(app id: AppID, duckers: [AppID]) -> Bool {
        guard let audio = apps[id]?.audioSession, audio.isActive, audio.configuration.isMixable else { return false }
        return duckers.contains { $0 != id }
    }

    /// A4: the apps of a device whose active session ducks others, in the order given.
    func duckingSessions(among deviceApps: [AppID]) -> [AppID] {
        deviceApps.filter { id in
            guard let audio = apps[id]?.audioSession else { return false }
            return audio.isActive && audio.configuration.duckOthers
        }
    }
}

extension AppRecord {
    /// A8: the app may keep (or start) audio while not on screen: it declares the "Audio, AirPlay
    /// and Picture in Picture" background mode and its category is playback or playAndRecord.
    public var mayPlayAudioInBackground: Bool {
        spec.backgroundModeAudioAirPlayPiP && audioSession.configuration.allowsBackgroundAudio
    }

    /// A8, L5: in background with an active audio session it may keep (a backgroundMedia app).
    public var playsBackgroundAudio: Bool {
        scene == .background && audioSession.isActive && mayPlayAudioInBackground
    }
}
