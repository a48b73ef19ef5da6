import CZMQ

/// A ZeroMQ socket.
///
/// Deliberately not `Sendable`: libzmq sockets are not thread safe, so the compiler keeps
/// each socket on the one thread that owns it (hand it over with a `sending` parameter
/// if it must move). Every failure throws `ZMQError`; EINTR is retried transparently.
///
/// A new socket gets a bounded LINGER of 1000 ms (libzmq's default is to wait forever),
/// so closing it, and later terminating its context, never hangs on undeliverable
/// messages. Change it with `set(.linger(milliseconds:))`.
public final class ZMQSocket {
    /// The libzmq socket, or nil once closed.
    private(set) var handle: UnsafeMutableRawPointer?
    /// The context this socket was created in; kept alive as long as the socket.
    public let context: ZMQContext
    public let type: SocketType

    /// The LINGER every new socket starts with, in milliseconds.
    public static let defaultLingerMilliseconds = 1000

    public init(_ context: ZMQContext, _ type: SocketType) throws {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket \(type)")
        }
        self.handle = handle
        self.context = context
        self.type = type
        try set(.linger(milliseconds: Self.defaultLingerMilliseconds))
    }

    deinit {
        close()
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { handle == nil }

    /// Closes the socket. Messages still queued are delivered for at most LINGER.
    /// Idempotent; every later operation throws a `ZMQError` (`isSocketClosed`).
    public func close() {
        guard let handle else { return }
        self.handle = nil
        _ = zmq_close(handle)
    }

    /// The open libzmq socket, or a thrown `ZMQError` if it has been closed.
    func openHandle(_ operation: @autoclosure () -> String) throws -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError.socketClosed(operation()) }
        return handle
    }

    /// Binds to a local endpoint: `tcp://127.0.0.1:5555`, `tcp://127.0.0.1:*` (an
    /// ephemeral port; read it back with `lastEndpoint`), `ipc:///path`, `inproc://name`.
    public func bind(_ endpoint: String) throws {
        let handle = try openHandle("bind \(endpoint)")
        if retryingEINTR({ zmq_bind(handle, endpoint) }) != 0 {
            throw ZMQError.last("bind \(endpoint)")
        }
    }

    /// Connects to a remote endpoint. libzmq connects (and reconnects) in the background,
    /// so this succeeds before the peer exists.
    public func connect(_ endpoint: String) throws {
        let handle = try openHandle("connect \(endpoint)")
        if retryingEINTR({ zmq_connect(handle, endpoint) }) != 0 {
            throw ZMQError.last("connect \(endpoint)")
        }
    }

    /// Stops listening on an endpoint given to `bind` (for wildcard binds, pass the
    /// endpoint returned by `lastEndpoint`).
    public func unbind(_ endpoint: String) throws {
        let handle = try openHandle("unbind \(endpoint)")
        if retryingEINTR({ zmq_unbind(handle, endpoint) }) != 0 {
            throw ZMQError.last("unbind \(endpoint)")
        }
    }

    /// Disconnects from an endpoint given to `connect`, and returns the whole messages that were
    /// waiting on the socket (from any of its peers), read first: libzmq 4.3 aborts the process
    /// (`Assertion failed: !_more (src/fq.cpp:112)`, zeromq/libzmq#3663) when a socket whose poll
    /// has already fetched the first part of a multipart message loses that message's pipe before
    /// the rest is read, which a disconnect between the poll and the read does.
    @discardableResult
    public func disconnect(_ endpoint: String) throws -> [ZMQMessage] {
        var waiting: [ZMQMessage] = []
        while let message = try receive(dontWait: true) { waiting.append(message) }
        let handle = try openHandle("disconnect \(endpoint)")
        if retryingEINTR({ zmq_disconnect(handle, endpoint) }) != 0 {
            throw ZMQError.last("disconnect \(endpoint)")
        }
        return waiting
    }
}

extension ZMQSocket: CustomStringConvertible {
    public var description: String {
        "ZMQSocket(\(type)\(handle == nil ? ", closed" : ""))"
    }
}
