import CamsyncPolicy
import CamsyncWire
import Logging

/// K3: rebuild the coordinator from its journal — the newest snapshot, then every command
/// after it, at the times they were first applied. The engine is deterministic, so this is exact.
enum CoordinatorRecovery {
    static func recover(journal: Journal, settings: CoordinatorSettings, logger: Logger) throws -> CoordinatorCore {
        let term = try journal.beginTerm()
        var state = ClusterState()
        var sequence: UInt64 = 0
        if let snapshot = try journal.latestSnapshot() {
            state = try WireCodec.decodeState(snapshot.state)
            sequence = snapshot.sequence
        }
        var core = CoordinatorCore(settings: settings, state: state, sequence: sequence, term: term)
        var replayed = 0
        // Commands kept from before the snapshot only refill the retry window (K5).
        for entry in try journal.entries(after: 0) {
            if entry.sequence <= sequence {
                core.rememberApplied(sequence: entry.sequence, node: entry.node, requestID: entry.requestID,
                                     at: Instant(milliseconds: entry.timeMilliseconds))
                continue
            }
            let command = try WireCodec.decodeCommand(entry.command)
            guard entry.sequence == core.sequence + 1 else {
                throw CoordinatorStartError(message: "journal gap: expected sequence \(core.sequence + 1), found \(entry.sequence)")
            }
            guard core.replay(sequence: entry.sequence, node: entry.node, requestID: entry.requestID,
                              command: command, at: Instant(milliseconds: entry.timeMilliseconds)) else {
                throw CoordinatorStartError(message: "journal entry \(entry.sequence) no longer applies: refusing to serve a state that differs from what was acknowledged")
            }
            replayed += 1
        }
        logger.info("journal recovered", metadata: [
            "term": "\(term)", "snapshotSequence": "\(sequence)", "replayed": "\(replayed)", "sequence": "\(core.sequence)",
        ])
        return core
    }
}
