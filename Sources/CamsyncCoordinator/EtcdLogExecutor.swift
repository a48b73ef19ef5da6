import CamsyncEtcd
import CamsyncRuntime
import Dispatch
import ZeroMQ

/// The HA loop's command log (SPEC K6): `EtcdCommandLog` driven from the loop thread. Every write is
/// conditional on the leadership the core names in its action (none: refused). Commits and snapshots
/// run as tasks, several at once (the pipeline); reads block the calling thread.
final class EtcdLogExecutor: CommandLog {
    let log: EtcdCommandLog
    /// The last commit submitted: the next one starts its request only once this one has started its
    /// own, so that turns leave in order (etcd refuses one that overtakes its predecessor).
    private let lastStarted = Locked<Signal?>(nil)

    init(log: EtcdCommandLog) { self.log = log }

    /// Never: etcd's round trip is not spent on the loop's thread.
    func commitAtOnce(_ commit: TurnCommit) -> StoreAnswer? { nil }

    func submit(_ commit: TurnCommit, answer: @escaping @Sendable (StoreAnswer) -> Void) {
        let log = self.log
        let started = Signal()
        let previous = lastStarted.withLock { last in
            defer { last = started }
            return last
        }
        // On the event loop of the etcd connection: the request leaves and its answer is taken there.
        Task(executorPreference: log.client.taskExecutor) {
            // The turn's batches are encoded here, off the loop's thread, and before this turn's turn to
            // start its request: encoding after it would let the next turn's request overtake this one's.
            let entries = commit.entries
            await previous?.wait()
            started.fire()
            do {
                let leadership = try Self.required(commit.leadership)
                let written = DispatchTime.now().uptimeNanoseconds
                try await log.append(entries, ifLeading: leadership, follows: commit.follows)
                CoordinatorMetrics.logWrite.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - written))
                answer(.committed(commit.id))
            } catch {
                answer(.commitFailed(commit.id, StoreFailure(error)))
            }
        }
    }

    func submit(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?,
                answer: @escaping @Sendable (StoreAnswer) -> Void) {
        let log = self.log
        Task {
            do {
                try await log.writeSnapshot(snapshot, keepingCommands: keep, ifLeading: try Self.required(leadership))
            } catch {
                answer(.snapshotFailed(StoreFailure(error)))
            }
        }
    }

    func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]] {
        let log = self.log
        return try Blocking.run { try await log.batches(after: sequence, limit: limit) }
    }

    /// The newest snapshot and every logged batch (a standby rebuilding; those up to the snapshot
    /// refill the retry window).
    func recover() throws -> (snapshot: JournalSnapshot?, batches: [LoggedBatch]) {
        let log = self.log
        return try Blocking.run {
            let snapshot = try await log.latestSnapshot()
            return (snapshot, try await log.loggedBatches(after: 0))
        }
    }

    func loggedBatches(after sequence: UInt64) throws -> [LoggedBatch] {
        let log = self.log
        return try Blocking.run { try await log.loggedBatches(after: sequence) }
    }

    private static func required(_ leadership: EtcdLeadership?) throws -> EtcdLeadership {
        guard let leadership else { throw EtcdError(.notLeader, "this coordinator does not lead") }
        return leadership
    }
}

/// A one-shot signal: `wait` returns once `fire` was called (at once after it).
final class Signal: Sendable {
    private let state = Locked<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
