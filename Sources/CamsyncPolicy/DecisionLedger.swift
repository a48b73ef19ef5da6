/// The last decision about each app's capture session, PiP window and audio session: the event, the
/// SPEC rule that decided it, and the sequence and command that caused it. Fold the command log into
/// it in order (`record`); `ctl why` and the web view's why panel read it.
public struct DecisionLedger: Hashable, Sendable {
    /// What of an app a decision is about.
    public enum Facet: String, Hashable, Codable, Sendable, CaseIterable {
        case session
        case pip
        case audio
    }

    /// One decision and what caused it.
    public struct Cause: Hashable, Codable, Sendable {
        public var sequence: UInt64
        public var command: Command
        public var decision: Decision
    }

    public private(set) var causes: [AppID: [Facet: Cause]] = [:]
    /// The sequence of the last batch recorded.
    public private(set) var sequence: UInt64 = 0

    public init() {}

    /// Records the decisions one command made at `sequence`.
    public mutating func record(sequence: UInt64, command: Command, decisions: [Decision]) {
        self.sequence = sequence
        for decision in decisions {
            guard let (app, facet) = decision.event.facet else { continue }
            // Within one command the decision that changed the state most tells why (an interruption
            // over the silence hint that follows it); across commands the later one.
            if let kept = causes[app]?[facet], kept.sequence == sequence, kept.decision.event.weight > decision.event.weight { continue }
            causes[app, default: [:]][facet] = Cause(sequence: sequence, command: command, decision: decision)
        }
    }

    /// The last decision about `facet` of `app`, if the log recorded here held one.
    public func cause(of facet: Facet, for app: AppID) -> Cause? { causes[app]?[facet] }
}

extension Event {
    /// How much an event changes its facet's state: interruptions, starts and stops over grants and
    /// ducking, those over configuration and hints.
    var weight: Int {
        switch self {
        case .sessionWasInterrupted, .sessionInterruptionEnded, .sessionStarted, .sessionStopped, .sessionCameraDisconnected,
             .audioInterruptionBegan, .audioInterruptionEnded, .audioSessionActivated, .audioSessionDeactivated,
             .pipDidStart, .pipDidStop, .pipSuspended, .pipResumed, .pipStashed, .pipUnstashed, .pipRestoreFinished:
            3
        case .cameraGranted, .audioDuckingBegan, .audioDuckingEnded, .pipMoved, .pipRestoreUserInterface:
            2
        default:
            1
        }
    }

    /// The app and the facet an event decides about; nil for events about nodes, cameras as such, layout.
    public var facet: (AppID, DecisionLedger.Facet)? {
        switch self {
        case .sessionConfigured(let app, _, _), .sessionStarted(let app), .sessionStopped(let app),
             .sessionWasInterrupted(let app, _), .sessionInterruptionEnded(let app), .sessionCameraDisconnected(let app, _),
             .cameraGranted(_, let app, _):
            (app, .session)
        case .pipControllerChanged(let app), .pipDidStart(let app, _, _), .pipDidStop(let app), .pipSuspended(let app),
             .pipResumed(let app), .pipStashed(let app), .pipUnstashed(let app), .pipMoved(let app, _, _),
             .pipRestoreUserInterface(let app), .pipRestoreFinished(let app, _):
            (app, .pip)
        case .audioSessionConfigured(let app, _), .audioSessionActivated(let app), .audioSessionDeactivated(let app),
             .audioInterruptionBegan(let app, _), .audioInterruptionEnded(let app, _), .audioDuckingBegan(let app),
             .audioDuckingEnded(let app), .secondaryAudioSilenceHintBegan(let app), .secondaryAudioSilenceHintEnded(let app):
            (app, .audio)
        default:
            nil
        }
    }
}
