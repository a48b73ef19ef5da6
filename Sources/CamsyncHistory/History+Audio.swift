public import CamsyncPolicy

/// A node logged an AVAudioSession notification for one of its apps (A3–A6) once its replica had
/// applied `sequence`: what the app was told about its audio session.
public struct AudioObservation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
        /// `interruptionNotification type=began` (A3, A8): the session is inactive.
        case interruptionBegan
        /// `interruptionNotification type=ended` (A6): inactive, no longer waiting.
        case interruptionEnded
        /// `silenceSecondaryAudioHintNotification type=begin` / `end` (A5).
        case silenceHintBegan, silenceHintEnded
        /// `duckingNotification type=began` / `ended` (A4).
        case duckingBegan, duckingEnded
    }

    public var node: NodeID
    public var app: AppID
    public var kind: Kind
    public var sequence: UInt64

    public init(node: NodeID, app: AppID, kind: Kind, sequence: UInt64) {
        self.node = node
        self.app = app
        self.kind = kind
        self.sequence = sequence
    }

    /// The observation an app-facing event name and its details make, nil for other events.
    public init?(node: NodeID, app: AppID, sequence: UInt64, name: String, details: [String: String]) {
        let kind: Kind?
        switch (name, details["type"]) {
        case ("interruptionNotification", "began"): kind = .interruptionBegan
        case ("interruptionNotification", "ended"): kind = .interruptionEnded
        case ("silenceSecondaryAudioHintNotification", "begin"): kind = .silenceHintBegan
        case ("silenceSecondaryAudioHintNotification", "end"): kind = .silenceHintEnded
        case ("duckingNotification", "began"): kind = .duckingBegan
        case ("duckingNotification", "ended"): kind = .duckingEnded
        default: kind = nil
        }
        guard let kind else { return nil }
        self.init(node: node, app: app, kind: kind, sequence: sequence)
    }

    public var description: String { "\(node) told \(app) \(kind.rawValue) at seq \(sequence)" }

    /// Whether the model's session after the observed command agrees with what the app was told.
    public func agrees(with session: AudioSessionRecord) -> Bool {
        switch kind {
        case .interruptionBegan: !session.isActive
        case .interruptionEnded: !session.isActive && session.interruptedBy == nil
        case .silenceHintBegan: session.secondaryAudioShouldBeSilencedHint
        case .silenceHintEnded: !session.secondaryAudioShouldBeSilencedHint
        case .duckingBegan: session.isDucked
        case .duckingEnded: !session.isDucked
        }
    }
}

// MARK: 7. Audio matches the model (A1–A8)

extension HistoryChecker {
    /// A1–A8 on every node's history: replaying the journal, the audio invariants hold after every
    /// command (at most one active non-mixable session per device, the silence hint exactly while
    /// another app's non-mixable session plays, ducking, interruptions, background audio); every
    /// AVAudioSession notification a node gave an app agrees with the model after that command;
    /// and every node's final replica satisfies the audio invariants.
    public static func audioMatchesModel(_ replay: ReplayInput, audio: [AudioObservation], final: FinalState,
                                         settings: PolicySettings) -> CheckResult {
        Self.replay(replay, settings: settings, [AudioCheck(replay, audio: audio, final: final)])[0]
    }
}

/// `audioMatchesModel` as it watches the replay.
struct AudioCheck: ReplayCheck {
    let replay: ReplayInput
    let observations: [AudioObservation]
    let final: FinalState
    var findings = Findings(.audioMatchesModel)
    /// The next notification to compare with the model.
    var next: Int

    init(_ replay: ReplayInput, audio: [AudioObservation], final: FinalState) {
        self.replay = replay
        self.final = final
        observations = audio.sorted { ($0.sequence, $0.node, $0.app) < ($1.sequence, $1.node, $1.app) }
        next = observations.firstIndex { $0.sequence > replay.baseSequence } ?? observations.count
    }

    mutating func start(_ state: ClusterState) {}

    mutating func step(_ step: ReplayStep) {
        guard step.rejection == nil else { return }  // check 6 reports it
        let state = step.state, entry = step.entry, commands = replay.commands
        let broken = step.changed.audioInvariantViolations()
        if !broken.isEmpty {
            findings.add("at seq \(entry.sequence): \(broken.prefix(3).joined(separator: "; "))", slice: slice(commands, around: step.index))
        }
        while next < observations.count, observations[next].sequence <= entry.sequence {
            let seen = observations[next]
            next += 1
            guard seen.sequence == entry.sequence else { continue }  // a sequence the journal does not hold
            let session = state.apps[seen.app]?.audioSession
            if session.map(seen.agrees(with:)) != true {
                findings.add("\(seen), the model has \(session.map { "\($0)" } ?? "no such app")",
                             slice: ["> \(seen)"] + slice(commands, around: step.index))
            }
        }
    }

    mutating func finish(_ state: ClusterState) -> CheckResult {
        for replica in final.replicas {
            let broken = replica.state.audioInvariantViolations()
            if !broken.isEmpty { findings.add("\(replica.node)'s final replica: \(broken.prefix(3).joined(separator: "; "))") }
        }
        return findings.result(examined: replay.commands.count + observations.count + final.replicas.count)
    }
}
