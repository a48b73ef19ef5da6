import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readiness conditions for polling.
public struct PollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// At least one message can be received without blocking.
    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// At least one message can be sent without blocking.
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
}

/// Waits until one of several sockets (or plain file descriptors) is ready.
///
/// Not `Sendable`: it refers to sockets, which belong to one thread.
public final class Poller {
    /// A registered socket or file descriptor and the conditions polled for.
    private struct Item {
        var socket: ZMQSocket?
        var fileDescriptor: Int32
        var events: PollEvents
    }

    /// An item that is ready after `poll`.
    public struct Ready {
        /// The position of the item in registration order (as returned by `register`).
        public let index: Int
        /// The socket, or nil for a file descriptor item.
        public let socket: ZMQSocket?
        /// The file descriptor, or nil for a socket item.
        public let fileDescriptor: Int32?
        /// Which of the polled-for conditions hold.
        public let events: PollEvents
    }

    private var items: [Item] = []

    public init() {}

    /// The number of registered items.
    public var count: Int { items.count }

    /// Polls `socket` for `events`. Registering the same socket again replaces its events.
    /// - Returns: the item's index, reported back in `Ready.index`.
    @discardableResult
    public func register(_ socket: ZMQSocket, for events: PollEvents = .readable) -> Int {
        if let index = items.firstIndex(where: { $0.socket === socket }) {
            items[index].events = events
            return index
        }
        items.append(Item(socket: socket, fileDescriptor: -1, events: events))
        return items.count - 1
    }

    /// Polls a plain file descriptor (e.g. the read end of a wake-up pipe) for `events`.
    @discardableResult
    public func register(fileDescriptor: Int32, for events: PollEvents = .readable) -> Int {
        if let index = items.firstIndex(where: { $0.socket == nil && $0.fileDescriptor == fileDescriptor }) {
            items[index].events = events
            return index
        }
        items.append(Item(socket: nil, fileDescriptor: fileDescriptor, events: events))
        return items.count - 1
    }

    /// Stops polling `socket`. Indexes of items registered after it shift down by one.
    public func unregister(_ socket: ZMQSocket) {
        items.removeAll { $0.socket === socket }
    }

    /// Waits until at least one registered item is ready, or `timeoutMs` elapses.
    ///
    /// - Parameter timeoutMs: 0 = check and return immediately; negative = wait forever
    ///   (loops should compute a finite timeout from their nearest deadline).
    /// - Returns: the ready items in registration order; empty when the timeout expired.
    ///   An interrupted wait (EINTR) is resumed for the time that remains.
    /// - Throws: `ZMQError` when a registered socket is closed, or for libzmq failures
    ///   (e.g. ETERM after the context was shut down).
    public func poll(timeoutMs: Int) throws -> [Ready] {
        var pollItems = [zmq_pollitem_t]()
        pollItems.reserveCapacity(items.count)
        for item in items {
            var socketHandle: UnsafeMutableRawPointer?
            if let socket = item.socket {
                socketHandle = try socket.openHandle("poll")
            }
            pollItems.append(zmq_pollitem_t(
                socket: socketHandle, fd: item.fileDescriptor,
                events: item.events.rawValue, revents: 0))
        }

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(max(timeoutMs, 0)))
        var wait = timeoutMs
        var rc: Int32
        while true {
            rc = pollItems.withUnsafeMutableBufferPointer {
                zmq_poll($0.baseAddress, Int32($0.count), wait)
            }
            guard rc == -1, zmq_errno() == EINTR else { break }
            if timeoutMs > 0 {
                let left = clock.now.duration(to: deadline)
                wait = left <= .zero ? 0 : Self.milliseconds(rounding: left)
            }
        }
        if rc < 0 { throw ZMQError.last("poll") }
        guard rc > 0 else { return [] }

        var ready: [Ready] = []
        for (index, polled) in pollItems.enumerated() where polled.revents != 0 {
            let item = items[index]
            ready.append(Ready(
                index: index, socket: item.socket,
                fileDescriptor: item.socket == nil ? item.fileDescriptor : nil,
                events: PollEvents(rawValue: polled.revents)))
        }
        return ready
    }

    private static func milliseconds(rounding duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
