import CamsyncCoordinatorCore
import ZeroMQ

/// Tasks parked until a condition on some locked state holds (the HA mailbox's resignations, the
/// core's leading). Each is resumed exactly once: by whoever made the condition hold (`takeDue`),
/// or by its own cancellation.
struct TaskWaiters: Sendable {
    private var parked: [(id: UInt64, key: Int64, resume: CheckedContinuation<Void, Never>)] = []
    private var nextID: UInt64 = 0

    /// How many tasks are parked now.
    var count: Int { parked.count }

    /// Removes and returns the parked tasks whose key `isDue`; the caller resumes them outside the lock.
    mutating func takeDue(_ isDue: (Int64) -> Bool) -> [CheckedContinuation<Void, Never>] {
        let due = parked.filter { isDue($0.key) }
        parked.removeAll { isDue($0.key) }
        return due.map(\.resume)
    }

    /// Parks the calling task in `lock`'s waiters under `key`, unless `ready` holds already, until
    /// `takeDue` returns it or the task is cancelled.
    static func park<State: WaitedOn>(in lock: Locked<State>, key: Int64, ready: @escaping @Sendable (State) -> Bool) async {
        let id = lock.withLock { state -> UInt64 in
            state.waiting.nextID += 1
            return state.waiting.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { state -> Bool in
                    if ready(state) || Task.isCancelled { return true }
                    state.waiting.parked.append((id, key, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = lock.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiting.parked.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.parked.remove(at: index).resume
            }
            waiting?.resume()
        }
    }
}

/// Locked state that tasks wait on: it keeps their `TaskWaiters`.
protocol WaitedOn: Sendable {
    var waiting: TaskWaiters { get set }
}
