import CamsyncEtcd
import CamsyncWire
import Foundation
import ZeroMQ

/// What passes between the HA supervisor (tasks talking to etcd) and the loop thread (sockets and
/// the core): etcd's news for the core in a locked queue with a pipe the loop polls, and the other
/// way the leaderships the core resigned, which the supervisor awaits.
final class HAMailbox: Sendable {
    private let queue = Locked<[LeadershipEvent]>([])
    private let pipe: (read: Int32, write: Int32)
    private let resignations = Locked<Resignations>(Resignations())

    private struct Resignations {
        /// The highest term the core resigned.
        var term: Int64 = 0
        var waiting: [(term: Int64, id: UInt64, resume: CheckedContinuation<Void, Never>)] = []
        var nextID: UInt64 = 0
    }

    init() throws {
        var fds: [Int32] = [0, 0]
        guard Foundation.pipe(&fds) == 0 else { throw CoordinatorStartError.system("pipe() failed: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        pipe = (fds[0], fds[1])
    }

    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    /// The descriptor the loop polls.
    var wakeDescriptor: Int32 { pipe.read }

    func post(_ event: LeadershipEvent) {
        queue.withLock { $0.append(event) }
        var byte: UInt8 = 1
        _ = write(pipe.write, &byte, 1)
    }

    /// Everything posted so far, oldest first.
    func take() -> [LeadershipEvent] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(pipe.read, &sink, sink.count) > 0 {}
        return queue.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

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
