#if os(Linux)
import CZMQ
import Glibc

/// Which of many sockets may have something to read, in time proportional to the ready ones: epoll
/// over each socket's `ZMQ_FD` (`ZMQSocket.fileDescriptor`), where `Poller` (zmq_poll) looks at
/// every socket on every call — a pass over thousands of sockets costs more than the messages it
/// finds. libzmq's descriptor only says that the socket's state may have changed: its owner reads
/// until nothing is left, and looks at `events` again after anything else it did with the socket
/// (a send can consume the signal of an arrival). Not `Sendable`: one thread uses it.
public final class SocketReadiness {
    private let epoll: Int32
    private var ready: [epoll_event]

    public init(batch: Int = 1024) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        ready = [epoll_event](repeating: epoll_event(), count: max(1, batch))
    }

    deinit { close(epoll) }

    /// Watches `socket`, reported as `key`. A closed socket leaves the set by itself once libzmq
    /// closes its descriptor; until then its key may still be reported.
    public func watch(_ socket: ZMQSocket, key: Int) throws {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(key)
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, try socket.fileDescriptor, &event) == 0 || errno == EEXIST else {
            throw ZMQError(code: errno, operation: "epoll_ctl")
        }
    }

    /// The keys of the sockets whose descriptor fired, waiting up to `timeoutMilliseconds` for one.
    public func wait(timeoutMilliseconds: Int) -> [Int] {
        let count = ready.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), Int32(clamping: timeoutMilliseconds))
        }
        return count > 0 ? ready.prefix(Int(count)).map { Int($0.data.u64) } : []
    }
}
#endif
