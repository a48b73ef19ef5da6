import CamsyncPolicy

/// AVAudioSession's notifications as an app sees them (A3–A6), in AVAudioSession's words:
///
/// | engine event | app-facing event |
/// |---|---|
/// | `audioInterruptionBegan` | `interruptionNotification type=began reason=default\|appWasSuspended` |
/// | `audioInterruptionEnded` | `interruptionNotification type=ended shouldResume=true` |
/// | `secondaryAudioSilenceHintBegan` / `Ended` | `silenceSecondaryAudioHintNotification type=begin` / `type=end` |
/// | `audioDuckingBegan` / `Ended` | `duckingNotification type=began` / `type=ended` (camsync's name: iOS only lowers the volume) |
/// | `audioSessionActivated` / `Deactivated` | `setActive active=true` / `active=false` (the app's own call succeeded) |
/// | `audioSessionConfigured` | `setCategory category=… mixWithOthers=… duckOthers=…` |
extension AppFacingEvent {
    static func describeAudio(_ event: Event) -> (AppID, String, [(String, String)])? {
        switch event {
        case .audioInterruptionBegan(let app, let reason):
            (app, "interruptionNotification", [("type", "began"), ("reason", reason.rawValue)])
        case .audioInterruptionEnded(let app, let shouldResume):
            (app, "interruptionNotification", [("type", "ended"), ("shouldResume", String(shouldResume))])
        case .secondaryAudioSilenceHintBegan(let app): (app, "silenceSecondaryAudioHintNotification", [("type", "begin")])
        case .secondaryAudioSilenceHintEnded(let app): (app, "silenceSecondaryAudioHintNotification", [("type", "end")])
        case .audioDuckingBegan(let app): (app, "duckingNotification", [("type", "began")])
        case .audioDuckingEnded(let app): (app, "duckingNotification", [("type", "ended")])
        case .audioSessionActivated(let app): (app, "setActive", [("active", "true")])
        case .audioSessionDeactivated(let app): (app, "setActive", [("active", "false")])
        case .audioSessionConfigured(let app, let configuration):
            (app, "setCategory", [("category", configuration.category.rawValue), ("mixWithOthers", String(configuration.mixWithOthers)),
                                  ("duckOthers", String(configuration.duckOthers))])
        default: nil
        }
    }
}
