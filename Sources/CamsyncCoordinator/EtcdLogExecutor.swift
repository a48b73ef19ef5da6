import CamsyncEtcd
import CamsyncRuntime
import Dispatch
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The HA loop's command log (SPEC K6): `EtcdCommandLog` driven from the loop thread. Every write is
/// conditional on the leadership the core names in its action (none: refused). Commits, snapshots and
/// reads run as tasks (commits several at once: the pipeline); nothing blocks the loop's thread.
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

    /// A read on the etcd connection's event loop; its answer is posted like a write's.
    func read(_ read: LogRead, answer: @escaping @Sendable (StoreAnswer) -> Void) {
        let log = self.log
        Task(executorPreference: log.client.taskExecutor) {
            switch read {
            case .replay(let routingID, let requestID, let after, let limit):
                let stored: Result<[[UInt8]], any Error>
                do { stored = .success(try await log.batches(after: after, limit: limit)) } catch { stored = .failure(error) }
                answer(.replay(routingID: routingID, requestID: requestID, after: after, stored))
            case .rebuild:
                do {
                    // The newest snapshot and every logged batch (those up to the snapshot refill the retry window).
                    let snapshot = try await log.latestSnapshot()
                    answer(.rebuilt(snapshot, try await log.loggedBatches(after: 0)))
                } catch {
                    answer(.readFailed(StoreFailure(error)))
                }
            case .log(let after):
                do { answer(.logRead(try await log.loggedBatches(after: after))) } catch { answer(.readFailed(StoreFailure(error))) }
            }
        }
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
