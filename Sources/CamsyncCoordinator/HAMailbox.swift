import CamsyncEtcd
import CamsyncWire
import Foundation
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// What passes between the HA supervisor (tasks talking to etcd) and the loop thread (sockets and
/// the core): etcd's news for the core in a locked queue with a pipe the loop polls, and the other
/// way the leaderships the core resigned, which the supervisor awaits.
final class HAMailbox: Sendable {
    private let news: LoopInbox<LeadershipEvent>
    private let resignations = Locked<Resignations>(Resignations())

    private struct Resignations: WaitedOn {
        /// The highest term the core resigned.
        var term: Int64 = 0
        /// Supervisors waiting for the resignation of a term (their key).
        var waiting = TaskWaiters()
    }

    /// Whether the core leads (the loop sets it from the core's `.count(.role)` actions), and the
    /// supervisor's log watch waiting for it to stop. While the core leads, the log's turns are its
    /// own and a leading core ignores them (a step-down rebuilds from etcd anyway), so the
    /// supervisor does not watch the log at all: etcd feeds one watch fewer, and the leader's etcd
    /// connection carries its txns and not each turn back.
    private let leading = Locked<Leading>(Leading())

    private struct Leading: WaitedOn {
        var value = false
        var waiting = TaskWaiters()
    }

    init() throws { news = try LoopInbox() }

    /// The descriptor the loop polls.
    var wakeDescriptor: Int32 { news.wakeDescriptor }

    func post(_ event: LeadershipEvent) { news.post(event) }

    /// Everything posted so far, oldest first.
    func take() -> [LeadershipEvent] { news.take() }

    var coreLeads: Bool { leading.withLock { $0.value } }

    /// The log watches parked until the core stops leading, and the supervisors parked until a
    /// resignation (what a test waits for to know a task has parked).
    var parkedWatches: Int { leading.withLock { $0.waiting.count } }
    var parkedResignations: Int { resignations.withLock { $0.waiting.count } }

    /// The loop tells whether the core leads now; a watch waiting for it to stop leading goes on.
    func setCoreLeads(_ value: Bool) {
        let due = leading.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.value = value
            return value ? [] : state.waiting.takeDue { _ in true }
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once the core does not lead (at once when it does not), or the task is cancelled.
    func untilCoreFollows() async {
        await TaskWaiters.park(in: leading, key: 0) { !$0.value }
    }

    /// The loop carries out the core's `resign`: the supervisor waiting on that leadership goes on.
    func resign(_ leadership: EtcdLeadership) {
        let due = resignations.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.term = max(state.term, leadership.term)
            let term = state.term
            return state.waiting.takeDue { $0 <= term }
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once the core resigned `leadership` (or a later one), or the task is cancelled.
    func resignation(of leadership: EtcdLeadership) async {
        let term = leadership.term
        await TaskWaiters.park(in: resignations, key: term) { $0.term >= term }
    }
}
