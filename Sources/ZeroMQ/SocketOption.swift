import CZMQ

/// A socket option with its typed value, for `ZMQSocket.set(_:)`.
///
/// Times are milliseconds. CURVE keys are 40-character Z85 text (see `CurveKeyPair`).
/// `description`, `debugDescription` and reflection never show a secret key.
public enum SocketOption: Sendable, Hashable {
    /// How long queued outgoing messages are kept after `close()`; -1 = forever, 0 = drop.
    case linger(milliseconds: Int)
    /// Outgoing queue limit in messages (0 = unlimited).
    case sendHighWaterMark(Int)
    /// Incoming queue limit in messages (0 = unlimited).
    case receiveHighWaterMark(Int)
    /// Largest accepted inbound message in bytes; a peer that sends a larger one is
    /// disconnected. -1 = no limit. (Not enforced on `inproc://`.)
    case maxMessageSize(Int64)
    /// ROUTER: fail with EHOSTUNREACH (or EAGAIN) instead of silently dropping a message to
    /// an unknown or unroutable peer.
    case routerMandatory(Bool)
    /// ROUTER: a new connection with a routing id already in use takes it over.
    case routerHandover(Bool)
    /// The routing id this socket presents to a ROUTER peer (1–255 bytes, not starting with 0).
    case routingID([UInt8])
    /// Queue messages only to completed connections.
    case immediate(Bool)
    /// SUB: receive messages whose first frame starts with this prefix (empty = all).
    case subscribe([UInt8])
    /// SUB: undo one `subscribe` with the same prefix.
    case unsubscribe([UInt8])
    /// XPUB: subscriptions are not applied by libzmq but received as messages; the application
    /// applies each with `subscribe`/`unsubscribe`, which act on the connection whose subscription
    /// message it received last (per-connection admission, e.g. by the message's "User-Id").
    case xpubManual(Bool)
    /// The context's I/O threads (a bit mask, bit 0 the first) that serve the connections this
    /// socket makes or accepts from now on; 0 = any (libzmq picks the least loaded).
    case affinity(UInt64)
    /// The listen queue of the sockets this one binds from now on: connections the kernel holds
    /// until libzmq accepts them (libzmq's default 100; the kernel caps it at `net.core.somaxconn`).
    /// A burst of connects beyond it loses SYNs, which their senders retry only after 1, 3, 7 s.
    case backlog(Int)
    /// Initial reconnect interval; -1 = do not reconnect.
    case reconnectInterval(milliseconds: Int)
    /// Upper bound of the exponential reconnect back-off (0 = only `reconnectInterval`).
    case reconnectIntervalMax(milliseconds: Int)
    /// Send a ZMTP PING every interval (0 = no heartbeats).
    case heartbeatInterval(milliseconds: Int)
    /// Time-to-live the peer should apply to this connection (rounded down to 100 ms).
    case heartbeatTTL(milliseconds: Int)
    /// Close the connection when no traffic arrives this long after a PING.
    case heartbeatTimeout(milliseconds: Int)
    /// The kernel's TCP keepalive on this socket's connections (probes cost no libzmq timer).
    case tcpKeepalive(Bool)
    /// Seconds a connection is idle before the first keepalive probe.
    case tcpKeepaliveIdle(seconds: Int)
    /// Seconds between keepalive probes.
    case tcpKeepaliveInterval(seconds: Int)
    /// Unanswered probes after which the kernel drops the connection.
    case tcpKeepaliveCount(Int)
    /// This socket is the CURVE server side (needs `curveSecretKey`).
    case curveServer(Bool)
    /// This socket's long-term CURVE secret key (Z85). Never printed.
    case curveSecretKey(String)
    /// This socket's long-term CURVE public key (Z85); needed by CURVE clients.
    case curvePublicKey(String)
    /// CURVE client: the server's public key (Z85); setting it makes the socket a CURVE client.
    case curveServerKey(String)
    /// The ZAP domain sent with authentication requests.
    case zapDomain(String)
    /// Receive timeout: `receive` returns nil after this long; -1 = block forever.
    case receiveTimeout(milliseconds: Int)
    /// Send timeout: `send` returns false after this long; -1 = block forever.
    case sendTimeout(milliseconds: Int)

    /// The libzmq option name, for error messages.
    public var name: String {
        switch self {
        case .linger: "LINGER"
        case .sendHighWaterMark: "SNDHWM"
        case .receiveHighWaterMark: "RCVHWM"
        case .maxMessageSize: "MAXMSGSIZE"
        case .routerMandatory: "ROUTER_MANDATORY"
        case .routerHandover: "ROUTER_HANDOVER"
        case .routingID: "ROUTING_ID"
        case .immediate: "IMMEDIATE"
        case .subscribe: "SUBSCRIBE"
        case .unsubscribe: "UNSUBSCRIBE"
        case .xpubManual: "XPUB_MANUAL"
        case .affinity: "AFFINITY"
        case .backlog: "BACKLOG"
        case .reconnectInterval: "RECONNECT_IVL"
        case .reconnectIntervalMax: "RECONNECT_IVL_MAX"
        case .heartbeatInterval: "HEARTBEAT_IVL"
        case .heartbeatTTL: "HEARTBEAT_TTL"
        case .heartbeatTimeout: "HEARTBEAT_TIMEOUT"
        case .tcpKeepalive: "TCP_KEEPALIVE"
        case .tcpKeepaliveIdle: "TCP_KEEPALIVE_IDLE"
        case .tcpKeepaliveInterval: "TCP_KEEPALIVE_INTVL"
        case .tcpKeepaliveCount: "TCP_KEEPALIVE_CNT"
        case .curveServer: "CURVE_SERVER"
        case .curveSecretKey: "CURVE_SECRETKEY"
        case .curvePublicKey: "CURVE_PUBLICKEY"
        case .curveServerKey: "CURVE_SERVERKEY"
        case .zapDomain: "ZAP_DOMAIN"
        case .receiveTimeout: "RCVTIMEO"
        case .sendTimeout: "SNDTIMEO"
        }
    }

    /// The libzmq option value and how to pass it.
    enum Value {
        case int(Int32, Int)
        case int64(Int32, Int64)
        case bytes(Int32, [UInt8])
        case z85Key(Int32, String)
    }

    var value: Value {
        switch self {
        case .linger(let ms): .int(ZMQ_LINGER, ms)
        case .sendHighWaterMark(let n): .int(ZMQ_SNDHWM, n)
        case .receiveHighWaterMark(let n): .int(ZMQ_RCVHWM, n)
        case .maxMessageSize(let n): .int64(ZMQ_MAXMSGSIZE, n)
        case .routerMandatory(let on): .int(ZMQ_ROUTER_MANDATORY, on ? 1 : 0)
        case .routerHandover(let on): .int(ZMQ_ROUTER_HANDOVER, on ? 1 : 0)
        case .xpubManual(let on): .int(ZMQ_XPUB_MANUAL, on ? 1 : 0)
        case .affinity(let mask): .int64(ZMQ_AFFINITY, Int64(bitPattern: mask))
        case .routingID(let id): .bytes(ZMQ_ROUTING_ID, id)
        case .immediate(let on): .int(ZMQ_IMMEDIATE, on ? 1 : 0)
        case .subscribe(let prefix): .bytes(ZMQ_SUBSCRIBE, prefix)
        case .unsubscribe(let prefix): .bytes(ZMQ_UNSUBSCRIBE, prefix)
        case .backlog(let n): .int(ZMQ_BACKLOG, n)
        case .reconnectInterval(let ms): .int(ZMQ_RECONNECT_IVL, ms)
        case .reconnectIntervalMax(let ms): .int(ZMQ_RECONNECT_IVL_MAX, ms)
        case .heartbeatInterval(let ms): .int(ZMQ_HEARTBEAT_IVL, ms)
        case .heartbeatTTL(let ms): .int(ZMQ_HEARTBEAT_TTL, ms)
        case .heartbeatTimeout(let ms): .int(ZMQ_HEARTBEAT_TIMEOUT, ms)
        case .tcpKeepalive(let on): .int(ZMQ_TCP_KEEPALIVE, on ? 1 : 0)
        case .tcpKeepaliveIdle(let seconds): .int(ZMQ_TCP_KEEPALIVE_IDLE, seconds)
        case .tcpKeepaliveInterval(let seconds): .int(ZMQ_TCP_KEEPALIVE_INTVL, seconds)
        case .tcpKeepaliveCount(let count): .int(ZMQ_TCP_KEEPALIVE_CNT, count)
        case .curveServer(let on): .int(ZMQ_CURVE_SERVER, on ? 1 : 0)
        case .curveSecretKey(let key): .z85Key(ZMQ_CURVE_SECRETKEY, key)
        case .curvePublicKey(let key): .z85Key(ZMQ_CURVE_PUBLICKEY, key)
        case .curveServerKey(let key): .z85Key(ZMQ_CURVE_SERVERKEY, key)
        case .zapDomain(let domain): .bytes(ZMQ_ZAP_DOMAIN, Array(domain.utf8))
        case .receiveTimeout(let ms): .int(ZMQ_RCVTIMEO, ms)
        case .sendTimeout(let ms): .int(ZMQ_SNDTIMEO, ms)
        }
    }
}

extension SocketOption: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .curveSecretKey: "\(name)=<redacted>"
        case .linger(let v), .sendHighWaterMark(let v), .receiveHighWaterMark(let v), .backlog(let v),
             .reconnectInterval(let v), .reconnectIntervalMax(let v), .heartbeatInterval(let v),
             .heartbeatTTL(let v), .heartbeatTimeout(let v), .receiveTimeout(let v), .sendTimeout(let v),
             .tcpKeepaliveIdle(let v), .tcpKeepaliveInterval(let v), .tcpKeepaliveCount(let v):
            "\(name)=\(v)"
        case .maxMessageSize(let v): "\(name)=\(v)"
        case .affinity(let mask): "\(name)=0b\(String(mask, radix: 2))"
        case .routerMandatory(let b), .routerHandover(let b), .immediate(let b), .curveServer(let b), .xpubManual(let b),
             .tcpKeepalive(let b):
            "\(name)=\(b)"
        case .routingID(let bytes), .subscribe(let bytes), .unsubscribe(let bytes):
            "\(name)=\(bytes)"
        case .curvePublicKey(let s), .curveServerKey(let s), .zapDomain(let s):
            "\(name)=\(s)"
        }
    }

    public var debugDescription: String { "SocketOption(\(description))" }

    /// Reflection (`dump`, `Mirror`) shows only the redacted description.
    public var customMirror: Mirror {
        Mirror(self, children: ["option": description], displayStyle: .enum)
    }
}

extension ZMQSocket {
    /// Sets a socket option. Most options apply to connections made after the call, so set
    /// them before `bind`/`connect`.
    public func set(_ option: SocketOption) throws {
        // The operation text names the option but never its value (keys must not reach logs).
        let operation = "setsockopt \(option.name)"
        let handle = try openHandle(operation)
        let rc: Int32
        switch option.value {
        case .int(let name, let value):
            guard let value = Int32(exactly: value) else {
                throw ZMQError.invalidArgument("\(operation) (value out of range)")
            }
            rc = withUnsafeBytes(of: value) { zmq_setsockopt(handle, name, $0.baseAddress, $0.count) }
        case .int64(let name, let value):
            rc = withUnsafeBytes(of: value) { zmq_setsockopt(handle, name, $0.baseAddress, $0.count) }
        case .bytes(let name, let bytes):
            rc = bytes.withUnsafeBytes { zmq_setsockopt(handle, name, $0.baseAddress, $0.count) }
        case .z85Key(let name, let key):
            guard CurveKeyPair.isValidZ85Key(key) else {
                throw ZMQError.invalidArgument("\(operation) (a key must be 40 characters of Z85)")
            }
            rc = Array(key.utf8).withUnsafeBytes { zmq_setsockopt(handle, name, $0.baseAddress, $0.count) }
        }
        if rc != 0 { throw ZMQError.last(operation) }
    }

    /// Sets several options in order.
    public func set(_ options: [SocketOption]) throws {
        for option in options { try set(option) }
    }

    /// The endpoint of the last `bind` or `connect`, with the actual port of a
    /// `tcp://host:*` bind (e.g. "tcp://127.0.0.1:45123"); empty if there was none.
    public var lastEndpoint: String {
        get throws {
            let handle = try openHandle("getsockopt LAST_ENDPOINT")
            var buffer = [UInt8](repeating: 0, count: 1024)
            var size = buffer.count
            let rc = buffer.withUnsafeMutableBytes {
                zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, $0.baseAddress, &size)
            }
            if rc != 0 { throw ZMQError.last("getsockopt LAST_ENDPOINT") }
            let bytes = buffer.prefix(min(size, buffer.count)).prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The file descriptor libzmq signals when the socket's `events` may have changed
    /// (edge-triggered; for integrating with another event loop). Check `events` after it fires.
    public var fileDescriptor: Int32 {
        get throws { try intOption(ZMQ_FD, "FD") }
    }

    /// Whether a message can be received and/or sent right now without blocking.
    public var events: PollEvents {
        get throws { PollEvents(rawValue: Int16(truncatingIfNeeded: try intOption(ZMQ_EVENTS, "EVENTS"))) }
    }

    /// The current LINGER in milliseconds.
    public var lingerMilliseconds: Int {
        get throws { Int(try intOption(ZMQ_LINGER, "LINGER")) }
    }

    private func intOption(_ name: Int32, _ label: String) throws -> Int32 {
        let handle = try openHandle("getsockopt \(label)")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        let rc = withUnsafeMutableBytes(of: &value) {
            zmq_getsockopt(handle, name, $0.baseAddress, &size)
        }
        if rc != 0 { throw ZMQError.last("getsockopt \(label)") }
        return value
    }
}
