public import CamsyncPolicy

/// One published event batch (one accepted command), as a node receives it.
public struct PublishedBatch: Sendable, Equatable {
    public var sequence: UInt64
    public var term: UInt64
    public var time: Instant
    public var command: Command
    public var events: [Event]

    public init(sequence: UInt64, term: UInt64, time: Instant, command: Command, events: [Event]) {
        self.sequence = sequence
        self.term = term
        self.time = time
        self.command = command
        self.events = events
    }
}

/// The node's replica and the zguide Clone pattern around it: subscribe first, then a
/// snapshot at sequence S, then only batches with sequence > S, strictly in order; a gap
/// means "snapshot again", never guesswork. Sans I/O: the shell feeds it and obeys the result.
public struct ReplicaSync: Sendable {
    public enum Phase: Sendable, Equatable {
        /// Waiting for a snapshot; batches are buffered meanwhile.
        case awaitingSnapshot
        case synced
    }

    /// What the shell must do after feeding a batch or snapshot.
    public enum Outcome: Sendable, Equatable {
        /// These batches were applied to the replica, in order (their events are app-facing).
        case applied([PublishedBatch])
        /// Nothing to do (buffered while joining, or an old duplicate).
        case nothing
        /// A sequence number is missing or the replica diverged: request a new snapshot.
        case needSnapshot(reason: String)
    }

    public private(set) var phase: Phase = .awaitingSnapshot
    public private(set) var engine: PolicyEngine
    public private(set) var sequence: UInt64 = 0
    public private(set) var term: UInt64 = 0
    private var buffered: [PublishedBatch] = []
    /// Bound on batches kept while waiting for a snapshot.
    public let bufferLimit: Int

    public init(settings: PolicySettings = PolicySettings(), bufferLimit: Int = 100_000) {
        self.engine = PolicyEngine(settings: settings)
        self.bufferLimit = bufferLimit
    }

    public var state: ClusterState { engine.state }

    /// The decision behind each app's session, PiP and audio (`ctl why`, the web view), kept only when
    /// set (the web view's follower does; nodes do not): batches are then applied with `PolicyEngine.decide`.
    public var ledger: DecisionLedger?

    /// Forget the replica's sync point (coordinator changed, reconnect): snapshot again.
    public mutating func resync() {
        phase = .awaitingSnapshot
        buffered.removeAll()
    }

    public mutating func receive(_ batch: PublishedBatch) -> Outcome {
        switch phase {
        case .awaitingSnapshot:
            if buffered.count >= bufferLimit { buffered.removeFirst() }
            buffered.append(batch)
            return .nothing
        case .synced:
            if batch.sequence <= sequence { return .nothing }
            if batch.sequence != sequence + 1 {
                let expected = sequence + 1
                resync()
                return .needSnapshot(reason: "gap: expected sequence \(expected), got \(batch.sequence)")
            }
            return apply([batch])
        }
    }

    /// Batches that arrived while waiting for the last snapshot and that the snapshot already
    /// covers: their state is in the snapshot, but their events still happened (app-facing logs).
    public private(set) var coveredBySnapshot: [PublishedBatch] = []

    /// A snapshot reflecting every command up to `sequence`.
    public mutating func receiveSnapshot(sequence: UInt64, term: UInt64, state: ClusterState,
                                         settings: PolicySettings) -> Outcome {
        let previous = self.sequence
        // Each sequence once: a batch that touches two device groups arrives on both topics.
        var heard = Set<UInt64>()
        buffered.removeAll { !heard.insert($0.sequence).inserted }
        coveredBySnapshot = buffered.filter { $0.sequence > previous && $0.sequence <= sequence }
            .sorted { $0.sequence < $1.sequence }
        engine = PolicyEngine(settings: settings, state: state)
        self.sequence = sequence
        self.term = term
        phase = .synced
        let pending = buffered.filter { $0.sequence > sequence }.sorted { $0.sequence < $1.sequence }
        buffered.removeAll()
        guard !pending.isEmpty else { return .applied([]) }
        var expected = sequence + 1
        for batch in pending {
            if batch.sequence != expected {
                resync()
                return .needSnapshot(reason: "gap while joining: expected \(expected), got \(batch.sequence)")
            }
            expected += 1
        }
        return apply(pending)
    }

    /// The coordinator's heartbeat says it has published up to `lastSequence`.
    /// Returns true when the replica is behind (a batch was lost): the shell should snapshot again.
    public func isBehind(coordinatorTerm: UInt64, lastSequence: UInt64) -> Bool {
        phase == .synced && (lastSequence > sequence || coordinatorTerm != term && lastSequence < sequence)
    }

    private mutating func apply(_ batches: [PublishedBatch]) -> Outcome {
        for batch in batches {
            switch engine.decide(batch.command, at: batch.time) {
            case .success(let decisions) where decisions.map(\.event) == batch.events:
                sequence = batch.sequence
                term = batch.term
                ledger?.record(sequence: batch.sequence, command: batch.command, decisions: decisions)
            case .success:
                resync()
                return .needSnapshot(reason: "replica diverged at sequence \(batch.sequence): events differ")
            case .failure(let rejection):
                resync()
                return .needSnapshot(reason: "replica refused sequence \(batch.sequence): \(rejection)")
            }
        }
        return .applied(batches)
    }
}
