public import CamsyncPolicy
import CamsyncWire

/// The coordinator's command log replayed through the engine: the state at a sequence and the
/// decision behind each app's session, PiP and audio (`ctl why`, the web view's why panel and history).
public struct LogReplay: Sendable {
    public var engine: PolicyEngine
    public var ledger: DecisionLedger
    /// The sequence the replayed state is at.
    public var sequence: UInt64
    /// 0 when the whole log was replayed; otherwise the snapshot the replay started from, because the
    /// log before it was compacted (decisions before it are unknown).
    public var startedAt: UInt64
    /// The commands replayed, from the state at `startedAt` (the history slider's).
    public var history: CommandHistory

    public init(engine: PolicyEngine, ledger: DecisionLedger = DecisionLedger(), sequence: UInt64, startedAt: UInt64,
                history: CommandHistory? = nil) {
        self.engine = engine
        self.ledger = ledger
        self.sequence = sequence
        self.startedAt = startedAt
        self.history = history ?? CommandHistory(settings: engine.settings, base: engine.state, baseSequence: sequence)
    }

    /// Replays one batch of the log; throws when the engine does not reproduce the published events.
    public mutating func apply(sequence: UInt64, command: Command, at time: Instant, events: [Event]) throws(ClientError) {
        switch engine.decide(command, at: time) {
        case .success(let decisions) where decisions.map(\.event) == events:
            ledger.record(sequence: sequence, command: command, decisions: decisions)
            history.append(sequence: sequence, time: time, command: command, stateAfter: engine.state)
            self.sequence = sequence
        case .success:
            throw ClientError.unexpectedReply("replaying the log diverged at sequence \(sequence): the events differ")
        case .failure(let rejection):
            throw ClientError.unexpectedReply("replaying the log: sequence \(sequence) was refused: \(rejection)")
        }
    }
}

extension CoordinatorClient {
    /// The log replayed from its beginning through `sequence` (the snapshot's, when nil). Where the
    /// log was compacted, the replay starts from the snapshot instead (when `sequence` is at or past it).
    public func replayLog(through sequence: UInt64? = nil, timeoutMilliseconds: Int = 5_000) throws -> LogReplay {
        try replayLog(snapshot: try snapshot(timeoutMilliseconds: timeoutMilliseconds), through: sequence,
                      timeoutMilliseconds: timeoutMilliseconds)
    }

    /// `replayLog(through:)` with the snapshot at hand (its settings, and the state where the log was compacted).
    public func replayLog(snapshot: Snapshot, through sequence: UInt64? = nil, timeoutMilliseconds: Int = 5_000) throws -> LogReplay {
        let target = min(sequence ?? snapshot.sequence, snapshot.sequence)
        var replay = LogReplay(engine: PolicyEngine(settings: snapshot.settings), sequence: 0, startedAt: 0)
        while replay.sequence < target {
            let page: Camsync_V1_Replay
            do {
                page = try self.replay(after: replay.sequence, timeoutMilliseconds: timeoutMilliseconds)
            } catch let error as ClientError where error.refusal?.code == .compacted && replay.sequence == 0 {
                guard target == snapshot.sequence else { throw error }
                return LogReplay(engine: PolicyEngine(settings: snapshot.settings, state: snapshot.state),
                                 sequence: snapshot.sequence, startedAt: snapshot.sequence)
            }
            guard !page.batches.isEmpty else { break }
            for batch in page.batches where batch.sequence > replay.sequence && batch.sequence <= target {
                try replay.apply(sequence: batch.sequence, command: try batch.domainCommand(), at: batch.time,
                                 events: try batch.domainEvents())
            }
            if page.batches.last.map({ $0.sequence >= target }) ?? true { break }
        }
        return replay
    }
}
