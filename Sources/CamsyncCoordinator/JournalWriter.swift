import CamsyncEtcd
import Dispatch

/// The embedded coordinator's log: the SQLite journal, written on a thread of its own in the order
/// the turns were submitted, so that the loop gathers (and decides) the next turn while the disk
/// syncs the last (the write-ahead contract holds: the core releases a turn only once answered).
/// After a failed write it writes nothing more: every later turn fails too (the core stops).
final class JournalWriter: CommandLog, @unchecked Sendable {
    /// Touched on `queue` only, except `batches(after:limit:)` (GRDB's queue serializes the reads).
    private let journal: Journal
    private let queue = DispatchQueue(label: "camsync.journal")
    private var failure: StoreFailure?

    init(journal: Journal) { self.journal = journal }

    func submit(_ commit: TurnCommit, answer: @escaping @Sendable (LogAnswer) -> Void) {
        queue.async { [self] in
            if let failure {
                answer(.failed(commit.id, failure))
                return
            }
            do {
                try journal.append(commit.entries)
                answer(.committed(commit.id))
            } catch {
                let failed = StoreFailure(error)
                failure = failed
                answer(.failed(commit.id, failed))
            }
        }
    }

    func submit(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?,
                answer: @escaping @Sendable (LogAnswer) -> Void) {
        queue.async { [self] in
            guard failure == nil else { return }
            do {
                try journal.writeSnapshot(snapshot, keepingCommands: keep)
            } catch {
                answer(.snapshotFailed(StoreFailure(error)))
            }
        }
    }

    func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]] {
        try journal.batches(after: sequence, limit: limit)
    }

    /// Returns once every write submitted so far is done (the loop stopping).
    func drain() { queue.sync {} }
}
