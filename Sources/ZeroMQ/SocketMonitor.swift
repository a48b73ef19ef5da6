import CZMQ

/// Receives the connection events of one socket (`zmq_socket_monitor` to an inproc PAIR).
///
/// Create it with `ZMQSocket.monitor()` before the socket binds or connects, so that no
/// event is missed. Like sockets, a monitor belongs to one thread (not `Sendable`); use it on
/// the thread that owns the monitored socket, or hand both over together.
public final class SocketMonitor {
    private let pair: ZMQSocket
    private weak var monitored: ZMQSocket?
    private var stopped = false

    private static let counter = Locked<UInt64>(0)

    init(socket: ZMQSocket) throws {
        let handle = try socket.openHandle("zmq_socket_monitor")
        let serial = Self.counter.withLock { value -> UInt64 in value += 1; return value }
        let endpoint = "inproc://camsync.zeromq.monitor.\(serial)"
        if zmq_socket_monitor(handle, endpoint, ZMQ_EVENT_ALL) != 0 {
            throw ZMQError.last("zmq_socket_monitor \(endpoint)")
        }
        do {
            let pair = try ZMQSocket(socket.context, .pair)
            try pair.set(.linger(milliseconds: 0))
            try pair.connect(endpoint)
            self.pair = pair
        } catch {
            _ = zmq_socket_monitor(handle, nil, 0)
            throw error
        }
        self.monitored = socket
    }

    deinit {
        stop()
    }

    /// The next event, waiting at most `timeoutMs` (0 = only if one is already queued).
    /// Returns nil when none arrived in time or monitoring has been stopped.
    public func nextEvent(timeoutMs: Int) throws -> MonitorEvent? {
        guard !pair.isClosed else { return nil }
        let poller = Poller()
        poller.register(pair)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(max(timeoutMs, 0)))
        while true {
            if let message = try pair.receive(dontWait: true) {
                if let event = MonitorEvent(frames: message.frames) { return event }
                continue  // malformed: skip it
            }
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            let ms = Int(left.components.seconds) * 1000 + Int(left.components.attoseconds / 1_000_000_000_000_000) + 1
            _ = try poller.poll(timeoutMs: ms)
        }
    }

    /// Reads events until one satisfies `predicate` or `timeoutMs` elapses (events read on
    /// the way are dropped). Returns the matching event, or nil on timeout.
    public func waitForEvent(timeoutMs: Int, where predicate: (MonitorEvent) -> Bool) throws -> MonitorEvent? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(max(timeoutMs, 0)))
        while true {
            let left = clock.now.duration(to: deadline)
            let ms = max(0, Int(left.components.seconds) * 1000 + Int(left.components.attoseconds / 1_000_000_000_000_000))
            guard let event = try nextEvent(timeoutMs: ms) else { return nil }
            if predicate(event) { return event }
            if ms == 0 { return nil }
        }
    }

    /// Stops monitoring and closes the monitor's socket. Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        if let socket = monitored, let handle = socket.handle {
            _ = zmq_socket_monitor(handle, nil, 0)
        }
        pair.close()
    }
}

extension ZMQSocket {
    /// Starts reporting this socket's connection events. Call before `bind`/`connect`.
    public func monitor() throws -> SocketMonitor {
        try SocketMonitor(socket: self)
    }
}
