public import CamsyncCoordinator
public import CamsyncPolicy
public import CamsyncWire
public import CamsyncCoordinatorCore

/// One untrusted frame through exactly what the coordinator runs: `CoordinatorCore.receive` (envelope
/// decoding, authentication, the mapping to a domain `Command`, authorisation, the retry window and the
/// engine). The actions it returns are then checked for the properties the cluster relies on; a broken
/// one is a `HostileInput.Failure`. A crash or a hang is a failure too, by construction (the caller dies
/// or times out).
///
/// Checks, per input:
/// - every reply is answerable: its envelope encodes and decodes again;
/// - an accepted command (an `append`) leaves `invariantViolations` empty;
/// - without an `append` the state is exactly as it was;
/// - the engine is deterministic: applying the logged command to the pre-state (what a node's replica
///   and the journal replay do) gives the same events and the same state;
/// - the logged command (`WireCodec`) and the published `EventBatch` round-trip to the same command
///   and events (what recovery and replicas decode);
/// - a snapshot reply decodes back to the same state.
public enum HostileInput {
    /// What happened to one input; every case but `accepted`/`snapshot`/`replay`/`heartbeat`/`retried` is a clean refusal.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        /// `Envelope.decode` refused the bytes (MALFORMED or UNSUPPORTED_VERSION).
        case undecodable(Camsync_V1_ErrorCode)
        /// An envelope without a usable sender (FORBIDDEN in lab mode).
        case unauthenticated
        /// The command did not map to the domain (MALFORMED, field path in the message).
        case invalidCommand
        /// The core refused it: authorisation or an engine rejection.
        case refused(Camsync_V1_ErrorCode)
        case accepted
        /// The same (sender, request id) again: the remembered reply (K5).
        case retried
        case snapshot
        case replay
        case heartbeat
        /// A body the coordinator does not take (ack, snapshot, event batch, …).
        case unexpectedMessage

        public var description: String {
            switch self {
            case .undecodable(let code): "undecodable(\(code))"
            case .refused(let code): "refused(\(code))"
            case .unauthenticated: "unauthenticated"
            case .invalidCommand: "invalidCommand"
            case .accepted: "accepted"
            case .retried: "retried"
            case .snapshot: "snapshot"
            case .replay: "replay"
            case .heartbeat: "heartbeat"
            case .unexpectedMessage: "unexpectedMessage"
            }
        }
    }

    /// A broken property: what broke, and the input that broke it.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var bytes: [UInt8]
        public init(_ message: String, bytes: [UInt8]) {
            self.message = message
            self.bytes = bytes
        }
        public var description: String {
            "\(message) (input: \(bytes.count) bytes, hex prefix \(bytes.prefix(64).map { String($0, radix: 16) }.joined(separator: " ")))"
        }
    }

    /// The routing id hostile frames arrive on.
    static let routingID = Array("hostile".utf8)

    /// The core's clocks for engine time `time`. The monotonic clock stands still, so liveness never
    /// declares the base cluster's nodes dead while inputs are explored; the engine's deadlines run.
    static func clocks(_ time: Instant) -> CoordinatorTime {
        CoordinatorTime(monotonicMilliseconds: 0, wallMilliseconds: time.milliseconds)
    }

    /// Runs `bytes` as one frame at the coordinator's ROUTER, in lab mode (no CURVE): the sender is
    /// trusted, `admin` is an admin.
    public static func exercise(_ bytes: [UInt8], core: inout CoordinatorCore, at time: Instant) throws(Failure) -> Outcome {
        let before = core.engine
        let actions = core.runTurn(at: clocks(time)) { core in
            var actions = core.receive(InboundFrame(frames: [routingID, bytes]), at: clocks(time))
            // The shell would read the log for a replay: this core has none, so it answers from an empty one.
            for case .serveReplay(let identity, let requestID, let after, _) in actions {
                actions += core.replayReply(to: identity, after: after, requestID: requestID, stored: .success([]))
            }
            return actions
        }
        try check(actions, before: before, after: core, bytes)
        return outcome(of: actions)
    }

    /// Runs the core's timers at `time` (the engine's due deadlines, e.g. `pip_restore_deadline_passed`,
    /// issued by the coordinator itself), with the same checks.
    public static func runDeadlines(core: inout CoordinatorCore, at time: Instant) throws(Failure) {
        let before = core.engine
        let actions = core.runTurn(at: clocks(time)) { $0.tick(at: clocks(time)) }
        try check(actions, before: before, after: core, [])
    }

    /// What the actions say happened.
    static func outcome(of actions: [CoordinatorAction]) -> Outcome {
        var replyCode: Camsync_V1_ErrorCode?
        var replyBody: Envelope.OneOf_Body?
        for envelope in actions.compactMap(\.reply?.envelope) {
            replyBody = envelope.body
            if case .error(let error)? = envelope.body { replyCode = error.code }
        }
        for case .count(let metric) in actions {
            switch metric {
            case .badFrame(let reason):
                switch reason {
                case .invalidCommand: return .invalidCommand
                case .unexpectedMessage: return .unexpectedMessage
                case .forbidden, .routingID: return .unauthenticated
                case .frames, .malformed, .unsupportedVersion: return .undecodable(replyCode ?? .malformed)
                }
            case .accepted: return .accepted
            case .retried: return .retried
            case .refused(let code): return .refused(code)
            default: continue
            }
        }
        switch replyBody {
        case .snapshot?: return .snapshot
        case .replay?: return .replay
        case .error(let error)? where error.code == .compacted: return .replay
        default: return .heartbeat
        }
    }

    // MARK: Checks

    private static func check(_ actions: [CoordinatorAction], before: PolicyEngine, after core: CoordinatorCore,
                              _ bytes: [UInt8]) throws(Failure) {
        var engine = before
        var appended = false
        for action in actions {
            switch action {
            case .reply, .answer:
                guard let envelope = action.reply?.envelope else { continue }
                try checkReply(envelope, bytes)
                if case .answer(_, let requestID, let shared) = action {
                    try checkShared(shared, answering: requestID, is: envelope, bytes)
                }
                if case .snapshot(let snapshot)? = envelope.body {
                    // A group's snapshot (only_my_group, or a named group) holds that group's part only.
                    let expected = snapshot.group.isEmpty ? core.state : core.engine.state(ofGroup: NodeID(snapshot.group))
                    try checkSnapshot(envelope, state: expected, bytes)
                }
            case .publish(_, let publication), .push(_, _, let publication):
                try checkReply(publication.envelope, bytes)
                try checkEncoding(publication, bytes)
            case .commit(let commit):
                appended = true
                for entry in commit.entries { try checkAppended(entry, replica: &engine, bytes) }
            default:
                continue
            }
        }
        guard engine == core.engine else {
            throw Failure(appended ? "replaying the logged commands gave another state"
                                   : "nothing was logged but the state changed", bytes: bytes)
        }
        let violations = core.state.invariantViolations(settings: core.engine.settings)
        guard violations.isEmpty else {
            throw Failure("invariants broken: \(violations.prefix(5))", bytes: bytes)
        }
    }

    private static func checkReply(_ reply: Envelope, _ bytes: [UInt8]) throws(Failure) {
        let encoded = reply.serializedBytes()
        guard let decoded = try? Envelope.decode(encoded), decoded == reply else {
            throw Failure("a reply or publication does not round-trip", bytes: bytes)
        }
    }

    /// A reply encoded once for several requests decodes, with each request's id appended, as the
    /// envelope answering that request.
    private static func checkShared(_ shared: Publication, answering requestID: UInt64, is reply: Envelope,
                                    _ bytes: [UInt8]) throws(Failure) {
        guard let decoded = try? Envelope.decode(shared.bytes(answering: requestID)), decoded == reply,
              decoded.requestID == requestID else {
            throw Failure("a reply shared by several requests does not decode as the reply to each", bytes: bytes)
        }
    }

    /// What is sent for a publication is its envelope, byte for byte (a batch's is built from the
    /// batch's own bytes, `Envelope.encodedEventBatch`).
    private static func checkEncoding(_ publication: Publication, _ bytes: [UInt8]) throws(Failure) {
        guard publication.bytes == publication.envelope.serializedBytes() else {
            throw Failure("a publication's bytes are not its envelope's encoding", bytes: bytes)
        }
    }

    /// A logged command, applied to the replica's state as recovery and the nodes do, must give the
    /// events its batch carries; command and batch must round-trip.
    private static func checkAppended(_ entry: JournalEntry, replica: inout PolicyEngine, _ bytes: [UInt8]) throws(Failure) {
        let command: Command
        do {
            command = try WireCodec.decodeCommand(entry.command)
        } catch {
            throw Failure("the logged command \(entry.sequence) does not decode: \(error)", bytes: bytes)
        }
        try checkJournalEncoding(command, bytes)
        guard let batch = try? Camsync_V1_EventBatch(serializedBytes: entry.batch) else {
            throw Failure("the logged batch \(entry.sequence) does not decode", bytes: bytes)
        }
        switch replica.apply(command, at: Instant(milliseconds: entry.timeMilliseconds)) {
        case .success(let events):
            try checkBatch(batch, command: command, events: events, bytes)
        case .failure(let rejection):
            throw Failure("replaying accepted \(command) was rejected: \(rejection)", bytes: bytes)
        }
    }

    /// What the journal stores for an accepted command must decode to the same command (K3 recovery).
    private static func checkJournalEncoding(_ command: Command, _ bytes: [UInt8]) throws(Failure) {
        let encoded = WireCodec.encode(command)
        guard let decoded = try? WireCodec.decodeCommand(encoded) else {
            throw Failure("the journal encoding of \(command) does not decode", bytes: bytes)
        }
        // Bytes, not values: an explicit NaN cost must round-trip too, and NaN != NaN.
        guard WireCodec.encode(decoded) == encoded else {
            throw Failure("the journal encoding of \(command) does not round-trip", bytes: bytes)
        }
    }

    /// The published batch decodes to the same command and events (nodes compare events).
    private static func checkBatch(_ wire: Camsync_V1_EventBatch, command: Command, events: [Event],
                                   _ bytes: [UInt8]) throws(Failure) {
        do {
            let decodedCommand = try wire.domainCommand()
            let decodedEvents = try wire.domainEvents()
            guard WireCodec.encode(decodedCommand) == WireCodec.encode(command) else {
                throw Failure("the event batch carries another command than \(command)", bytes: bytes)
            }
            guard decodedEvents == events || Camsync_V1_EventBatch(
                sequence: wire.sequence, term: wire.term, time: Instant(milliseconds: 0),
                originNode: nil, originRequestID: 0, command: decodedCommand, events: decodedEvents).events == wire.events else {
                throw Failure("the event batch of \(command) carries other events", bytes: bytes)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure("the event batch of \(command) does not map back: \(error)", bytes: bytes)
        }
    }

    private static func checkSnapshot(_ reply: Envelope, state: ClusterState, _ bytes: [UInt8]) throws(Failure) {
        guard case .snapshot(let snapshot)? = reply.body, let decodedState = try? snapshot.domainState() else {
            throw Failure("the snapshot reply does not decode", bytes: bytes)
        }
        guard decodedState == state || WireCodec.encode(decodedState) == WireCodec.encode(state) else {
            throw Failure("the snapshot reply decodes to another state", bytes: bytes)
        }
    }
}
