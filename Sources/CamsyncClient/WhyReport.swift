public import CamsyncPolicy
import CamsyncVerbs

/// `camsync ctl why NODE/APP` as data (and the web view's why panel): the app's capture session,
/// PiP window and audio session, each with the SPEC rule that decided it and the sequence and
/// command that caused it; for the camera, its holder and the sessions waiting in C6's order.
public struct WhyReport: Codable, Sendable, Equatable {
    /// A decision: its rule, and the batch of the log that made it (absent when it was made before
    /// the part of the log that was replayed; then the rule is read from the state).
    public struct Decided: Codable, Sendable, Equatable {
        public var rule: String
        public var sequence: UInt64?
        public var command: String?
        public var event: String?
    }

    public struct Camera: Codable, Sendable, Equatable {
        public var system: String
        public var holder: String?
        public var token: UInt64
        public var pressure: String
        /// C6's stack: the sessions waiting for the camera, the one it goes to next first.
        public var waiters: [String]
    }

    public struct Session: Codable, Sendable, Equatable {
        /// `running`, `stopped`, `interrupted videoDeviceInUseByAnotherClient (3)`.
        public var state: String
        public var decided: Decided
        public var camera: Camera?
    }

    public struct PiP: Codable, Sendable, Equatable {
        /// `inactive`, `active on ipad-1 at 24,24,320,180`, `active on … stashed`, `suspended`.
        public var window: String
        public var decided: Decided?
    }

    public struct Audio: Codable, Sendable, Equatable {
        /// `playback+mixWithOthers`, `active`/`inactive`, who interrupted it, ducking and the silence hint.
        public var category: String
        public var active: Bool
        public var interruptedBy: String?
        public var ducked: Bool
        public var secondaryAudioSilenced: Bool
        /// A7: the app holding the device's microphone, if any.
        public var microphoneHolder: String?
        public var decided: Decided?
    }

    public var app: String
    /// The sequence the report describes the cluster at.
    public var sequence: UInt64
    /// 0 when the whole log was replayed; otherwise the sequence the replay started from (compacted log).
    public var logStartsAt: UInt64
    public var scene: String
    public var role: String
    public var session: Session?
    public var pip: PiP?
    public var audio: Audio

    /// The report for `app` from a replayed log; nil when the cluster has no such app.
    public init?(app id: AppID, replay: LogReplay) {
        let state = replay.engine.state
        guard let app = state.apps[id] else { return nil }
        func decided(_ facet: DecisionLedger.Facet, otherwise rule: RuleID?) -> Decided? {
            if let cause = replay.ledger.cause(of: facet, for: id) {
                return Decided(rule: cause.decision.rule.rawValue, sequence: cause.sequence,
                               command: cause.command.words.description, event: cause.decision.event.words)
            }
            return rule.map { Decided(rule: $0.rawValue) }
        }
        self.app = id.description
        sequence = replay.sequence
        logStartsAt = replay.startedAt
        scene = app.scene.words
        role = app.role?.rawValue ?? "none"
        session = app.session.map { session in
            let system = state.cameraSystem(of: session.configuration.camera)
            let camera = system.flatMap { state.cameraSystems[$0] }.map { record in
                Camera(system: record.id.description, holder: record.holder?.description, token: record.lastToken.value,
                       pressure: record.pressure.description, waiters: state.waiters(of: record.id).map(\.description))
            }
            // Without a recorded decision, the rule the state shows: C2's step, C1 for the holder, C2.6 for a waiter.
            let fromState: RuleID = switch session.state {
            case .running: "C1"
            case .stopped: "C7"
            case .interrupted: state.ineligibility(app: id)?.rule ?? "C2.6"
            }
            return Session(state: session.state.words, decided: decided(.session, otherwise: fromState)!, camera: camera)
        }
        pip = app.pip.map { PiP(window: $0.window.words, decided: decided(.pip, otherwise: nil)) }
        let audioSession = app.audioSession
        audio = Audio(category: audioSession.configuration.description, active: audioSession.isActive,
                      interruptedBy: audioSession.interruptedBy?.description, ducked: audioSession.isDucked,
                      secondaryAudioSilenced: audioSession.secondaryAudioShouldBeSilencedHint,
                      microphoneHolder: state.microphoneHolder(device: id.device)?.description,
                      decided: decided(.audio, otherwise: nil))
    }
}
