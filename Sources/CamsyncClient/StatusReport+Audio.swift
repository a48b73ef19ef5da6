public import CamsyncPolicy

extension StatusReport {
    public static let audioHeader = ["DEVICE", "APP", "CATEGORY", "OPTIONS", "SESSION", "DUCKED", "SILENCE HINT", "MICROPHONE"]

    /// One row per running app (A1–A8): its category and options, whether the session is active,
    /// inactive or interrupted (and by whom), ducked (A4), its silence hint (A5), and whether it
    /// holds the device's microphone (A7).
    public static func audioRows(_ state: ClusterState) -> [[String]] {
        var microphones: [NodeID: AppID?] = [:]
        return state.apps.values.sorted { $0.id < $1.id }.filter { $0.scene.isRunning }.map { app in
            let audio = app.audioSession
            let configuration = audio.configuration
            let options = [configuration.mixWithOthers ? "mixWithOthers" : nil, configuration.duckOthers ? "duckOthers" : nil]
                .compactMap { $0 }.joined(separator: ",")
            let session = audio.isActive ? "active"
                : audio.interruptedBy.map { "interrupted by \($0.bundleID)" } ?? "inactive"
            if microphones[app.id.device] == nil { microphones[app.id.device] = .some(state.microphoneHolder(device: app.id.device)) }
            let holdsMicrophone = microphones[app.id.device] == .some(app.id)
            return [app.id.device.rawValue, app.id.bundleID, configuration.category.rawValue, options.isEmpty ? "-" : options, session,
                    audio.isDucked ? "yes" : "no", audio.secondaryAudioShouldBeSilencedHint ? "yes" : "no", holdsMicrophone ? "yes" : "-"]
        }
    }
}
