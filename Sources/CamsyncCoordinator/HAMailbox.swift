import CamsyncEtcd
import CamsyncWire
import Foundation
import ZeroMQ

/// What passes between the HA supervisor (tasks talking to etcd) and the loop thread (sockets and
/// the core): etcd's news for the core in a locked queue with a pipe the loop polls, and the other
/// way the leaderships the core resigned, which the supervisor awaits.
final class HAMailbox: Sendable {
    private let news: LoopInbox<LeadershipEvent>
    private let resignations = Locked<Resignations>(Resignations())

    private struct Resignations {
        /// The highest term the core resigned.
        var term: Int64 = 0
        var waiting: [(term: Int64, id: UInt64, resume: CheckedContinuation<Void, Never>)] = []
        var nextID: UInt64 = 0
    }

    /// Whether the core leads (the loop sets it from the core's `.count(.role)` actions). While it
    /// does, the supervisor neither decodes nor posts the log's turns: they are this coordinator's
    /// own, and a leading core ignores them (a step-down rebuilds from etcd anyway).
    let coreLeads = Locked(false)

    init() throws { news = try LoopInbox() }

    /// The descriptor the loop polls.
    var wakeDescriptor: Int32 { news.wakeDescriptor }

    func post(_ event: LeadershipEvent) { news.post(event) }

    /// Everything posted so far, oldest first.
    func take() -> [LeadershipEvent] { news.take() }

    /// The loop carries out the core's `resign`: the supervisor waiting on that leadership goes on.
    func resign(_ leadership: EtcdLeadership) {
        let due = resignations.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.term = max(state.term, leadership.term)
            let due = state.waiting.filter { $0.term <= state.term }
            state.waiting.removeAll { $0.term <= state.term }
            return due.map(\.resume)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once the core resigned `leadership` (or a later one), or the task is cancelled.
    func resignation(of leadership: EtcdLeadership) async {
        let id = resignations.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = resignations.withLock { state -> Bool in
                    if state.term >= leadership.term || Task.isCancelled { return true }
                    state.waiting.append((leadership.term, id, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = resignations.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).resume
            }
            waiting?.resume()
        }
    }
}
