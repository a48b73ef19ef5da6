import CamsyncEtcd
import CamsyncWire
import Foundation
import ZeroMQ

/// What passes between the HA supervisor (a task talking to etcd) and the loop thread (sockets and
/// the core): news for the loop in a locked queue with a pipe the loop polls, and the two facts the
/// supervisor needs from the loop (has it stepped down, until when is the lease known to live).
final class HAMailbox: Sendable {
    enum News: Sendable {
        /// This coordinator won the election: catch up from the log, then lead in `leadership.term`.
        case won(EtcdLeadership)
        /// The leader as etcd shows it now (nil: none).
        case leader(Camsync_V1_CoordinatorAddress?)
        /// A turn of the leader's log, as the watch delivered it.
        case logTurn(Camsync_V1_Replay)
        /// The lease is gone (or could not be renewed in time): stop leading.
        case leaseLost(String)
        /// etcd cannot be reached or has no quorum (said in NOT_LEADER errors while it lasts).
        case trouble(String)
    }

    private let queue = Locked<[News]>([])
    private let pipe: (read: Int32, write: Int32)
    /// Monotonic ms until which the lease is known to live (renewal sent at t, TTL s → t + TTL).
    private let leaseValid = Locked<Int64>(0)
    /// Bumped by the loop each time it steps down: the supervisor then gives the leadership up.
    private let stepDowns = Locked<Int>(0)

    init() throws {
        var fds: [Int32] = [0, 0]
        guard Foundation.pipe(&fds) == 0 else { throw CoordinatorStartError(message: "pipe() failed: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        pipe = (fds[0], fds[1])
    }

    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    /// The descriptor the loop polls.
    var wakeDescriptor: Int32 { pipe.read }

    func post(_ news: News) {
        queue.withLock { $0.append(news) }
        var byte: UInt8 = 1
        _ = write(pipe.write, &byte, 1)
    }

    /// Everything posted so far, oldest first.
    func take() -> [News] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(pipe.read, &sink, sink.count) > 0 {}
        return queue.withLock { news in
            defer { news.removeAll() }
            return news
        }
    }

    var leaseValidUntil: Int64 {
        get { leaseValid.withLock { $0 } }
        set { leaseValid.withLock { $0 = newValue } }
    }

    func stepDown() { stepDowns.withLock { $0 += 1 } }
    var stepDownCount: Int { stepDowns.withLock { $0 } }
}
