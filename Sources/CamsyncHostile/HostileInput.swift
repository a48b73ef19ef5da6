public import CamsyncCoordinator
public import CamsyncPolicy
public import CamsyncWire

/// One untrusted frame through everything the coordinator does with it: envelope decoding,
/// the mapping to a domain `Command` (bad ones become clean `MALFORMED` errors), authorisation
/// in `CoordinatorCore` (or the engine directly), and the engine's apply. After every step the
/// properties the cluster relies on are checked; a broken one is a `HostileInput.Failure`.
/// A crash or a hang is a failure too, by construction (the caller dies or times out).
///
/// Checks, per input:
/// - every error is answerable: the error reply envelope encodes and decodes again;
/// - an accepted command leaves `invariantViolations` empty;
/// - a refused command leaves the state exactly as it was;
/// - the engine is deterministic: re-applying the command to the pre-state (what a node's
///   replica and the journal replay do) gives the same events and the same state;
/// - the journal encoding of the command (`WireCodec`) and the published `EventBatch` round-trip
///   to the same command and events (what recovery and replicas decode);
/// - a snapshot reply decodes back to the same state.
public enum HostileInput {
    /// What happened to one input; every case but `accepted`/`snapshot`/`heartbeat`/`retried` is a clean refusal.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        /// `Envelope.decode` refused the bytes (MALFORMED or UNSUPPORTED_VERSION).
        case undecodable(Camsync_V1_ErrorCode)
        /// An envelope without a usable sender (FORBIDDEN in lab mode).
        case unauthenticated
        /// The command did not map to the domain (MALFORMED, field path in the message).
        case invalidCommand
        /// The core refused it: authorisation or an engine rejection.
        case refused(CoordinatorErrorCode)
        case accepted
        /// The same (sender, request id) again: the remembered reply (K5).
        case retried
        case snapshot
        case heartbeat
        /// A body the coordinator does not take (ack, snapshot, event batch, …).
        case unexpectedMessage

        public var description: String {
            switch self {
            case .undecodable(let code): "undecodable(\(code))"
            case .refused(let code): "refused(\(code.rawValue))"
            case .unauthenticated: "unauthenticated"
            case .invalidCommand: "invalidCommand"
            case .accepted: "accepted"
            case .retried: "retried"
            case .snapshot: "snapshot"
            case .heartbeat: "heartbeat"
            case .unexpectedMessage: "unexpectedMessage"
            }
        }

        /// The wire error code the coordinator answers with, nil for a non-error answer.
        public var errorCode: Camsync_V1_ErrorCode? {
            switch self {
            case .undecodable(let code): code
            case .unauthenticated: .forbidden
            case .invalidCommand: .malformed
            case .refused(let code): code.wire
            case .unexpectedMessage: .unexpectedMessage
            case .accepted, .retried, .snapshot, .heartbeat: nil
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

    /// The sender name that is an admin in lab mode (as `CoordinatorLoop` decides).
    public static let adminSender = "admin"

    // MARK: Through CoordinatorCore (authorisation, retry window, engine)

    /// Runs `bytes` as one frame at the coordinator's ROUTER, in lab mode (no CURVE): the sender is
    /// trusted, `admin` is an admin.
    public static func exercise(_ bytes: [UInt8], core: inout CoordinatorCore, at time: Instant) throws(Failure) -> Outcome {
        let envelope: Envelope
        switch decode(bytes, term: core.term) {
        case .failure(let error): return try answered(.undecodable(error.code), bytes)
        case .success(let decoded): envelope = decoded
        }
        guard !envelope.sender.isEmpty else { return try answered(.unauthenticated, bytes) }
        switch envelope.body {
        case .command:
            let command: Command
            do {
                command = try envelope.domainCommand()
            } catch {
                try checkReply(.error(Camsync_V1_Error(error), requestID: envelope.requestID, term: core.term), bytes)
                return .invalidCommand
            }
            try checkJournalEncoding(command, bytes)
            let before = core.engine
            let (outcome, isRetry) = core.handle(command, from: envelope.sender, requestID: envelope.requestID,
                                                 isAdmin: envelope.sender == adminSender, at: time)
            if isRetry {
                guard core.engine == before else { throw Failure("a retried request changed state", bytes: bytes) }
                return .retried
            }
            switch outcome {
            case .accepted(let sequence, let events):
                try checkAccepted(command, events: events, before: before, after: core.engine, at: time,
                                  sequence: sequence, term: core.term, bytes)
                return .accepted
            case .refused(let code, let message, _):
                guard core.engine == before else {
                    throw Failure("refused (\(code): \(message)) but the state changed", bytes: bytes)
                }
                return try answered(.refused(code), bytes)
            }
        case .snapshotRequest:
            try checkSnapshot(core.state, settings: core.engine.settings, sequence: core.sequence, term: core.term,
                              requestID: envelope.requestID, bytes)
            return .snapshot
        case .nodeHeartbeat:
            return .heartbeat
        default:
            return try answered(.unexpectedMessage, bytes)
        }
    }

    /// Runs the engine's own deadlines that are due at `time`, as the coordinator's timers do
    /// (`pip_restore_deadline_passed`, issued by the coordinator itself), with the same checks.
    public static func runDeadlines(core: inout CoordinatorCore, at time: Instant) throws(Failure) {
        for _ in 0..<64 {
            guard let (due, command) = core.engine.nextDeadline(), due <= time else { return }
            let before = core.engine
            let (outcome, _) = core.handle(command, from: CoordinatorCore.selfSender, requestID: core.sequence + 1,
                                           isAdmin: true, at: time)
            guard case .accepted(let sequence, let events) = outcome else { return }
            try checkAccepted(command, events: events, before: before, after: core.engine, at: time,
                              sequence: sequence, term: core.term, [])
        }
        throw Failure("the engine's deadlines never settle (64 due in a row)", bytes: [])
    }

    // MARK: Directly through the engine (no authorisation)

    /// Runs `bytes` through decoding, the mapping and `PolicyEngine.apply`, every command as if an admin sent it.
    public static func exercise(_ bytes: [UInt8], engine: inout PolicyEngine, at time: Instant) throws(Failure) -> Outcome {
        let envelope: Envelope
        switch decode(bytes, term: 0) {
        case .failure(let error): return try answered(.undecodable(error.code), bytes)
        case .success(let decoded): envelope = decoded
        }
        switch envelope.body {
        case .command:
            let command: Command
            do {
                command = try envelope.domainCommand()
            } catch {
                try checkReply(.error(Camsync_V1_Error(error), requestID: envelope.requestID, term: 0), bytes)
                return .invalidCommand
            }
            try checkJournalEncoding(command, bytes)
            let before = engine
            switch engine.apply(command, at: time) {
            case .success(let events):
                try checkAccepted(command, events: events, before: before, after: engine, at: time, sequence: 1, term: 1, bytes)
                return .accepted
            case .failure(let rejection):
                guard engine == before else { throw Failure("rejected (\(rejection)) but the state changed", bytes: bytes) }
                return try answered(.refused(.rejected), bytes)
            }
        case .snapshotRequest:
            try checkSnapshot(engine.state, settings: engine.settings, sequence: 0, term: 1, requestID: envelope.requestID, bytes)
            return .snapshot
        case .nodeHeartbeat:
            return .heartbeat
        default:
            return try answered(.unexpectedMessage, bytes)
        }
    }

    // MARK: Checks

    private static func decode(_ bytes: [UInt8], term: UInt64) -> Result<Envelope, WireError> {
        do {
            return .success(try Envelope.decode(bytes))
        } catch {
            return .failure(error)
        }
    }

    /// The error reply for `outcome` must encode and decode (the coordinator sends one for each).
    private static func answered(_ outcome: Outcome, _ bytes: [UInt8]) throws(Failure) -> Outcome {
        if let code = outcome.errorCode {
            try checkReply(.error(Camsync_V1_Error(code: code, message: "\(outcome)"), requestID: 0, term: 1), bytes)
        }
        return outcome
    }

    private static func checkReply(_ reply: Envelope, _ bytes: [UInt8]) throws(Failure) {
        let encoded = reply.serializedBytes()
        guard let decoded = try? Envelope.decode(encoded), decoded == reply else {
            throw Failure("the error reply does not round-trip", bytes: bytes)
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

    private static func checkAccepted(_ command: Command, events: [Event], before: PolicyEngine, after: PolicyEngine,
                                      at time: Instant, sequence: UInt64, term: UInt64, _ bytes: [UInt8]) throws(Failure) {
        let violations = after.state.invariantViolations(settings: after.settings)
        guard violations.isEmpty else {
            throw Failure("invariants broken after \(command): \(violations.prefix(5))", bytes: bytes)
        }
        // A replica (or the journal replay) applies the same command to the same state.
        var replica = before
        switch replica.apply(command, at: time) {
        case .success(let replayed):
            guard replayed == events else { throw Failure("replaying \(command) gave other events", bytes: bytes) }
            guard replica == after else { throw Failure("replaying \(command) gave another state", bytes: bytes) }
        case .failure(let rejection):
            throw Failure("replaying accepted \(command) was rejected: \(rejection)", bytes: bytes)
        }
        // The published batch decodes to the same command and events (nodes compare events).
        let batch = Envelope.eventBatch(Camsync_V1_EventBatch(
            sequence: sequence, term: term, time: time, originNode: nil, originRequestID: 0, command: command, events: events))
        guard let decoded = try? Envelope.decode(batch.serializedBytes()), case .eventBatch(let wire)? = decoded.body else {
            throw Failure("the event batch of \(command) does not decode", bytes: bytes)
        }
        do {
            let decodedCommand = try wire.domainCommand()
            let decodedEvents = try wire.domainEvents()
            guard WireCodec.encode(decodedCommand) == WireCodec.encode(command) else {
                throw Failure("the event batch carries another command than \(command)", bytes: bytes)
            }
            guard decodedEvents == events || Camsync_V1_EventBatch(
                sequence: sequence, term: term, time: time, originNode: nil, originRequestID: 0,
                command: decodedCommand, events: decodedEvents) == wire else {
                throw Failure("the event batch of \(command) carries other events", bytes: bytes)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure("the event batch of \(command) does not map back: \(error)", bytes: bytes)
        }
    }

    private static func checkSnapshot(_ state: ClusterState, settings: PolicySettings, sequence: UInt64, term: UInt64,
                                      requestID: UInt64, _ bytes: [UInt8]) throws(Failure) {
        let reply = Envelope.snapshot(state, sequence: sequence, term: term, requestID: requestID, settings: settings)
        guard let decoded = try? Envelope.decode(reply.serializedBytes()), case .snapshot(let snapshot)? = decoded.body,
              let decodedState = try? snapshot.domainState() else {
            throw Failure("the snapshot reply does not decode", bytes: bytes)
        }
        guard decodedState == state || WireCodec.encode(decodedState) == WireCodec.encode(state) else {
            throw Failure("the snapshot reply decodes to another state", bytes: bytes)
        }
    }
}
