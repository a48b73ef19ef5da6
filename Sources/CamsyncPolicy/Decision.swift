/// A SPEC rule id (`C2.4`, `A7`, `P5`, `C10` …), as docs/SPEC.md numbers its rules.
public struct RuleID: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
}

/// One decision of the engine: an event and the SPEC rule that decided it. `PolicyEngine.decide`
/// returns them in the order `apply` returns the events.
public struct Decision: Hashable, Codable, Sendable {
    public var event: Event
    public var rule: RuleID
    public init(_ event: Event, rule: RuleID) {
        self.event = event
        self.rule = rule
    }
}

extension RuleID {
    /// The rule that governs an event of this kind, where the engine does not name a more precise one
    /// (camera arbitration names C2.1–C2.6, C4, C5, C6, C13 and A7 itself).
    static func governing(_ event: Event) -> RuleID {
        switch event {
        case .nodeJoined, .nodeRejoined: "K2"
        case .nodeLeft, .appTerminated(_, .deviceGone): "K1"
        case .displayAttached, .displayDetached: "L3"
        case .deviceSettingsChanged: "L3"
        case .appInstalled: "L1"
        case .sceneChanged: "L1"
        case .roleChanged: "L5"
        case .appTerminated(_, .memoryLimit): "P9"
        case .appTerminated(_, .user): "C6"
        case .sessionConfigured: "C9"
        case .sessionStarted, .sessionStopped, .sessionInterruptionEnded: "C7"
        case .sessionWasInterrupted: "C2"
        case .sessionCameraDisconnected: "C10"
        case .cameraGranted: "C8"
        case .cameraReleased: "C6"
        case .pressureChanged: "S1"
        case .throttleAdvised: "S2"
        case .recordingStarted, .recordingFinished, .recordingQualityAlert: "R1"
        case .warning(_, .multitaskingCameraAccessNotRecommended): "R2"
        case .warning: "P7"
        case .pipControllerChanged: "P1"
        case .pipDidStart: "P1"
        case .pipDidStop: "P6"
        case .pipSuspended, .pipResumed: "P4"
        case .pipStashed, .pipUnstashed: "P5"
        case .pipMoved: "P8"
        case .pipRestoreUserInterface, .pipRestoreFinished: "P6"
        case .audioSessionConfigured: "A1"
        case .audioSessionActivated: "A2"
        case .audioSessionDeactivated: "A6"
        case .audioInterruptionBegan(_, .default): "A3"
        case .audioInterruptionBegan(_, .appWasSuspended): "A8"
        case .audioInterruptionEnded: "A6"
        case .audioDuckingBegan, .audioDuckingEnded: "A4"
        case .secondaryAudioSilenceHintBegan, .secondaryAudioSilenceHintEnded: "A5"
        }
    }
}
