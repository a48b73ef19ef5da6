import CamsyncEtcd
import Dispatch
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The embedded coordinator's log: the SQLite journal, written on a thread of its own in the order
/// the turns were submitted, so that the loop gathers (and decides) the next turn while the disk
/// syncs the last (the write-ahead contract holds: the core releases a turn only once answered).
/// A small turn while nothing is being written, and no frame waits, is written on the loop's thread
/// instead (`commitAtOnce`): at low load that saves two thread hand-offs per claim (the writer's
/// wake-up and the answer's), and there is no next turn to overlap with. A snapshot is encoded and
/// written on a thread of its own, to its own database, once the turns before it are written: the state of ten
/// thousand nodes takes 100 ms and more to encode and tens of milliseconds to write, and turns
/// queued behind it waited that long for their acks. After a failed write it writes nothing more:
/// every later turn fails too (the core stops).
final class JournalWriter: CommandLog, @unchecked Sendable {
    /// Its commands are written by the writer's queue, or by the loop while nothing is queued (replays
    /// are read on the writer's queue too); its snapshots, and the compaction after each, on
    /// `snapshotter` (each of its databases serializes its callers).
    private let journal: Journal
    private let queue = DispatchQueue(label: "camsync.journal")
    /// Where snapshots are encoded and written, one at a time, in the order they were submitted.
    private let snapshotter = DispatchQueue(label: "camsync.journal.snapshot")
    private let state = Locked(State())

    private struct State {
        /// Writes submitted to `queue` and not finished.
        var queued = 0
        var failure: StoreFailure?
    }

    /// The most commands a turn written on the loop's thread may hold: a bigger turn means load, where
    /// the SQLite work belongs on the writer's thread, overlapping the loop's next turn.
    static let atOnceLimit = 8

    init(journal: Journal) { self.journal = journal }

    func commitAtOnce(_ commit: TurnCommit) -> StoreAnswer? {
        guard commit.count <= Self.atOnceLimit else { return nil }
        let (idle, failure) = state.withLock { ($0.queued == 0, $0.failure) }
        guard idle else { return nil }   // a write is queued: this one goes behind it
        return failure.map { .commitFailed(commit.id, $0) } ?? write(commit)
    }

    func submit(_ commit: TurnCommit, answer: @escaping @Sendable (StoreAnswer) -> Void) {
        enqueue { [self] failure in
            failure.map { .commitFailed(commit.id, $0) } ?? write(commit)
        } then: { answer($0) }
    }

    /// Once every turn submitted before it is written (a snapshot of sequence S must not outlive a
    /// crash that loses a command up to S), `snapshot` is encoded and written on the snapshotter's
    /// thread; the writer goes on with the turns after it meanwhile.
    func submit(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?,
                answer: @escaping @Sendable (StoreAnswer) -> Void) {
        enqueue { [self] failure -> StoreAnswer? in
            guard failure == nil else { return nil }
            snapshotter.async { [self] in
                do {
                    try journal.writeSnapshot(snapshot, keepingCommands: keep)
                } catch {
                    answer(.snapshotFailed(StoreFailure(error)))
                }
            }
            return nil
        } then: { answer($0) }
    }

    /// A replay's read, on the writer's queue after the writes before it. The journal holds the whole
    /// state on this machine: a rebuild or a read of the log is never asked of it (etcd's, in HA).
    func read(_ read: LogRead, answer: @escaping @Sendable (StoreAnswer) -> Void) {
        guard case .replay(let routingID, let requestID, let after, let limit) = read else {
            answer(.readFailed(StoreFailure(.unavailable, "the embedded journal serves replays only")))
            return
        }
        enqueue { [self] _ in
            .replay(routingID: routingID, requestID: requestID, after: after,
                    Result { try journal.batches(after: after, limit: limit) })
        } then: { answer($0) }
    }

    /// Runs `work` on the writer's queue, after every write submitted before it, with the failure
    /// that stopped the journal (if one did); its answer goes to `answer` once the write no longer
    /// counts as queued (the loop, woken by it, may write the next turn itself).
    private func enqueue(_ work: @escaping @Sendable (StoreFailure?) -> StoreAnswer?,
                         then answer: @escaping @Sendable (StoreAnswer) -> Void) {
        state.withLock { $0.queued += 1 }
        queue.async { [state] in
            let result = work(state.withLock { $0.failure })
            state.withLock { $0.queued -= 1 }
            if let result { answer(result) }
        }
    }

    private func write(_ commit: TurnCommit) -> StoreAnswer {
        do {
            let entries = commit.entries
            let started = DispatchTime.now().uptimeNanoseconds
            try journal.append(entries)
            CoordinatorMetrics.logWrite.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
            return .committed(commit.id)
        } catch {
            let failed = StoreFailure(error)
            state.withLock { $0.failure = failed }
            return .commitFailed(commit.id, failed)
        }
    }
}
