import CamsyncRuntime
public import CamsyncPolicy
import CamsyncWire
import Logging

/// K3: rebuild the coordinator from its log — the newest snapshot, then every command after it, at
/// the times they were first applied. The engine is deterministic, so this is exact. The log is the
/// SQLite journal (embedded) or etcd (HA: a standby starting, or catching up after a gap).
public enum CoordinatorRecovery {
    /// Commands read from the journal at a time: memory stays bounded whatever the journal's length.
    package static let pageSize = 8_192

    /// The core after `snapshot` and `entries` (those up to the snapshot only refill the retry window, K5).
    public static func rebuild(settings: CoordinatorSettings, term: UInt64, snapshot: JournalSnapshot?,
                        entries: [JournalEntry]) throws -> (core: CoordinatorCore, replayed: Int) {
        var core = try start(settings: settings, term: term, snapshot: snapshot)
        let replayed = try replay(entries, into: &core, snapshotSequence: snapshot?.sequence ?? 0)
        return (core, replayed)
    }

    /// The core after `snapshot` and the log's `batches` (those up to the snapshot only refill the
    /// retry window, K5, and the batches kept for replays): a standby rebuilding from etcd.
    public static func rebuild(settings: CoordinatorSettings, term: UInt64, snapshot: JournalSnapshot?,
                               batches: [LoggedBatch]) throws -> (core: CoordinatorCore, replayed: Int) {
        var core = try start(settings: settings, term: term, snapshot: snapshot)
        let snapshotSequence = snapshot?.sequence ?? 0
        var replayed = 0
        for logged in batches {
            let batch = logged.batch
            if batch.sequence <= snapshotSequence {
                core.rememberApplied(sequence: batch.sequence, node: batch.sender,
                                     requestID: batch.originRequestID, at: Instant(milliseconds: batch.timeMs))
                core.recentBatches.append(sequence: batch.sequence, encoded: logged.encoded)
                continue
            }
            switch core.follow(logged) {
            case .applied: replayed += 1
            case .stale, .gap: throw CoordinatorStartError.logGap(expected: core.sequence + 1, found: batch.sequence)
            case .diverged: throw CoordinatorStartError.logDiverged(sequence: batch.sequence)
            }
        }
        return (core, replayed)
    }

    /// The core at `snapshot` (or empty).
    package static func start(settings: CoordinatorSettings, term: UInt64, snapshot: JournalSnapshot?) throws -> CoordinatorCore {
        guard let snapshot else { return CoordinatorCore(settings: settings, term: term) }
        var (state, groupSequences) = try WireCodec.decodeSnapshotState(snapshot.state)
        if settings.plantedBug == .forgetGroupSequences { groupSequences = GroupSequences() }
        return CoordinatorCore(settings: settings, state: state, sequence: snapshot.sequence, term: term,
                               groupSequences: groupSequences)
    }

    /// Applies `entries`, in order, to `core`; returns how many were replayed (not only remembered).
    package static func replay(_ entries: [JournalEntry], into core: inout CoordinatorCore, snapshotSequence: UInt64) throws -> Int {
        var replayed = 0
        for entry in entries {
            if entry.sequence <= snapshotSequence {
                core.rememberApplied(sequence: entry.sequence, node: entry.node, requestID: entry.requestID,
                                     at: Instant(milliseconds: entry.timeMilliseconds))
                continue
            }
            let command = try WireCodec.decodeCommand(entry.command)
            guard entry.sequence == core.sequence + 1 else {
                throw CoordinatorStartError.logGap(expected: core.sequence + 1, found: entry.sequence)
            }
            guard core.replay(sequence: entry.sequence, node: entry.node, requestID: entry.requestID,
                              command: command, at: Instant(milliseconds: entry.timeMilliseconds)) else {
                throw CoordinatorStartError.logDiverged(sequence: entry.sequence)
            }
            replayed += 1
        }
        return replayed
    }
}
