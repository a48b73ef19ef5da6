public import CamsyncPolicy
import CamsyncWire
import Logging

/// K3: rebuild the coordinator from its log — the newest snapshot, then every command after it, at
/// the times they were first applied. The engine is deterministic, so this is exact. The log is the
/// SQLite journal (embedded) or etcd (HA: a standby starting, or catching up after a gap).
public enum CoordinatorRecovery {
    static func recover(journal: Journal, settings: CoordinatorSettings, logger: Logger) throws -> CoordinatorCore {
        let term = try journal.beginTerm()
        let (core, replayed) = try rebuild(settings: settings, term: term, snapshot: try journal.latestSnapshot(),
                                           entries: try journal.entries(after: 0))
        logger.info("journal recovered", metadata: [
            "term": "\(term)", "replayed": "\(replayed)", "sequence": "\(core.sequence)",
        ])
        return core
    }

    /// The core after `snapshot` and `entries` (those up to the snapshot only refill the retry window, K5).
    public static func rebuild(settings: CoordinatorSettings, term: UInt64, snapshot: JournalSnapshot?,
                        entries: [JournalEntry]) throws -> (core: CoordinatorCore, replayed: Int) {
        var state = ClusterState()
        var sequence: UInt64 = 0
        if let snapshot {
            state = try WireCodec.decodeState(snapshot.state)
            sequence = snapshot.sequence
        }
        var core = CoordinatorCore(settings: settings, state: state, sequence: sequence, term: term)
        var replayed = 0
        for entry in entries {
            if entry.sequence <= sequence {
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
        return (core, replayed)
    }
}
