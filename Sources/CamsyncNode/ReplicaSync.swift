import CamsyncRuntime
import CamsyncVerbs
public import CamsyncPolicy
public import CamsyncWire

/// One published event batch (one accepted command), as a node receives it.
public struct PublishedBatch: Sendable, Equatable {
    public var sequence: UInt64
    public var term: UInt64
    public var time: Instant
    public var command: Command
    public var events: [Event]
    /// The device groups it went to, each with the sequence of the group's previous batch.
    public var groups: [NodeID: UInt64]
    /// The engine's logical clock before the command (nil: not said).
    public var ordinal: UInt64?

    public init(sequence: UInt64, term: UInt64, time: Instant, command: Command, events: [Event],
                groups: [NodeID: UInt64] = [:], ordinal: UInt64? = nil) {
        self.sequence = sequence
        self.term = term
        self.time = time
        self.command = command
        self.events = events
        self.groups = groups
        self.ordinal = ordinal
    }

    /// A batch as published.
    public init(wire: Camsync_V1_EventBatch) throws {
        self.init(sequence: wire.sequence, term: wire.term, time: wire.time, command: try wire.domainCommand(),
                  events: try wire.domainEvents(),
                  groups: Dictionary(wire.groups.map { (NodeID($0.group), $0.sequence) }, uniquingKeysWith: { first, _ in first }),
                  ordinal: wire.groups.isEmpty ? nil : wire.ordinal)
    }
}

/// The node's replica and the zguide Clone pattern around it: the feed live first, then a
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
    /// The device group this replica holds (docs/PROTOCOL.md "Following one group"); nil: the whole
    /// cluster. Set by the snapshot: a group's snapshot makes a partial replica.
    public private(set) var group: NodeID?
    /// A partial replica: the sequence of the group's last batch applied (or of the snapshot's).
    public private(set) var groupSequence: UInt64 = 0
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
            if let group, batch.groups[group] == nil, batch.sequence > sequence {
                // Everything on a node's feed is of the group the node is in: one that does not name
                // this replica's group means the node was moved by a batch it never heard.
                resync()
                return .needSnapshot(reason: "batch \(batch.sequence) on this node's feed is not of group \(group): moved to another group")
            }
            guard isNew(batch) else { return .nothing }
            guard follows(batch) else {
                let expected = group.map { "the batch after \(groupSequence) in group \($0)" } ?? "sequence \(sequence + 1)"
                resync()
                return .needSnapshot(reason: "gap: expected \(expected), got \(batch.sequence)")
            }
            return apply([batch])
        }
    }

    /// A batch that reaches `group` without changing its part of the state: another device's
    /// registration, sent to the group of a display that waits for that device.
    func isNotice(_ batch: PublishedBatch, to group: NodeID) -> Bool {
        guard case .registerNode(let registration) = batch.command, registration.kind == .device else { return false }
        return registration.node != group && engine.state.nodes[registration.node] == nil
    }

    /// Whether `batch` is one this replica has not applied: after its sequence, and for a partial
    /// replica one of its group's.
    public func isNew(_ batch: PublishedBatch) -> Bool {
        guard let group else { return batch.sequence > sequence }
        return batch.groups[group] != nil && batch.sequence > max(groupSequence, sequence)
    }

    /// Whether `batch` continues this replica: the next sequence, or for a partial replica the batch
    /// that names the group's last one as its previous.
    public func follows(_ batch: PublishedBatch) -> Bool {
        guard let group else { return batch.sequence == sequence + 1 }
        if plantedBug == .applyAcrossGroupGap, batch.groups[group] != nil, batch.sequence > groupSequence { return true }
        return batch.groups[group] == groupSequence
    }

    /// A bug planted for the simulator (`NodeSettings.plantedBug`).
    var plantedBug: PlantedBug?

    /// Batches that arrived while waiting for the last snapshot and that the snapshot already
    /// covers: their state is in the snapshot, but their events still happened (app-facing logs).
    public private(set) var coveredBySnapshot: [PublishedBatch] = []

    /// Snapshots this replica took (each replaces it whole; between two, it moves batch by batch).
    public private(set) var snapshotsTaken = 0
    /// Batches this replica decided differently from the leader, or could not decide (a replica
    /// that held the leader's state would never): each costs a snapshot. Never, in a correct cluster.
    public private(set) var divergences = 0
    /// Why the last divergence was one.
    public private(set) var lastDivergence = ""

    /// A snapshot reflecting every command up to `sequence`.
    /// `group`: a group's snapshot (its part of the state, and `groupSequence`, the sequence of the
    /// group's last batch in it); nil: the whole state.
    public mutating func receiveSnapshot(sequence: UInt64, term: UInt64, state: ClusterState,
                                         settings: PolicySettings, group: NodeID? = nil,
                                         groupSequence: UInt64 = 0) -> Outcome {
        let previous = self.sequence
        snapshotsTaken += 1
        // Each sequence once: a new leader publishes again the batches its predecessor may not have (K7).
        var heard = Set<UInt64>()
        buffered.removeAll { !heard.insert($0.sequence).inserted }
        if let group { buffered.removeAll { $0.groups[group] == nil } }
        coveredBySnapshot = buffered.filter { $0.sequence > previous && $0.sequence <= sequence }
            .sorted { $0.sequence < $1.sequence }
        engine = PolicyEngine(settings: settings, state: state)
        self.sequence = sequence
        self.term = term
        self.group = group
        self.groupSequence = groupSequence
        phase = .synced
        let pending = buffered.filter { $0.sequence > sequence }.sorted { $0.sequence < $1.sequence }
        buffered.removeAll()
        guard !pending.isEmpty else { return .applied([]) }
        var last = (sequence: sequence, inGroup: groupSequence)
        for batch in pending {
            let continues = group.map { batch.groups[$0] == last.inGroup } ?? (batch.sequence == last.sequence + 1)
            if !continues {
                resync()
                return .needSnapshot(reason: "gap while joining: after \(group == nil ? last.sequence : last.inGroup), got \(batch.sequence)")
            }
            last = (batch.sequence, batch.sequence)
        }
        return apply(pending)
    }

    /// The coordinator's heartbeat says it has published up to `lastSequence`.
    /// Returns true when the replica is behind (a batch was lost): the shell should snapshot again.
    public func isBehind(coordinatorTerm: UInt64, lastSequence: UInt64) -> Bool {
        // A partial replica does not hold every sequence: only a coordinator of another term that is
        // behind it (one that lost its journal) says it is off.
        phase == .synced && (group == nil && lastSequence > sequence || coordinatorTerm != term && lastSequence < sequence)
    }

    private mutating func apply(_ batches: [PublishedBatch]) -> Outcome {
        for batch in batches {
            if let group, isNotice(batch, to: group) {
                // The group heard it, but its part of the state does not change: a device registering,
                // told to the displays that wait for it.
                sequence = batch.sequence
                groupSequence = batch.sequence
                term = batch.term
                continue
            }
            if group != nil, let ordinal = batch.ordinal { engine.continueOrdinals(from: ordinal) }
            switch engine.decide(batch.command, at: batch.time) {
            case .success(let decisions) where decisions.map(\.event) == batch.events:
                sequence = batch.sequence
                if let group {
                    groupSequence = batch.sequence
                    if batch.command.movesNodes { engine.keepOnly(group: group) }
                }
                term = batch.term
                ledger?.record(sequence: batch.sequence, command: batch.command, decisions: decisions)
            case .success(let decisions):
                resync()
                if let group, batch.command.movesNodes {
                    // A node moving in from another group, which this part of the state does not hold
                    // (it joins here, rejoins for the leader): the group's snapshot brings it.
                    return .needSnapshot(reason: "batch \(batch.sequence) moves a node into group \(group) from outside it: the group's snapshot")
                }
                divergences += 1
                lastDivergence = "batch \(batch.sequence): the leader's events [\(batch.events.map(\.words).joined(separator: "; "))], "
                    + "this replica's [\(decisions.map(\.event.words).joined(separator: "; "))]"
                return .needSnapshot(reason: "replica diverged at sequence \(batch.sequence): events differ")
            case .failure(let rejection):
                resync()
                if let group, batch.command.movesNodes {
                    // A node moving into the group that this part of the state does not hold yet (an
                    // attach from elsewhere): not a divergence, the group's snapshot brings it.
                    return .needSnapshot(reason: "batch \(batch.sequence) moves a node this replica of group \(group) does not hold: the group's snapshot")
                }
                divergences += 1
                lastDivergence = "batch \(batch.sequence) refused by this replica: \(rejection.message)"
                return .needSnapshot(reason: "replica refused sequence \(batch.sequence): \(rejection)")
            }
        }
        return .applied(batches)
    }
}
