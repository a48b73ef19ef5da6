import CZMQ

/// A socket event reported by `SocketMonitor` (libzmq's `zmq_socket_monitor`, event format v1).
public enum MonitorEvent: Sendable, Hashable {
    /// An outgoing connection was established (before the ZMTP handshake).
    case connected(endpoint: String)
    /// A connection ended (peer went away, heartbeat timeout, MAXMSGSIZE exceeded, …).
    case disconnected(endpoint: String)
    /// The ZMTP handshake (including CURVE and ZAP) completed.
    case handshakeSucceeded(endpoint: String)
    /// The ZAP handler refused the peer; `statusCode` is its answer (e.g. 400).
    case handshakeFailedAuth(endpoint: String, statusCode: Int)
    /// The handshake failed on a protocol error; `code` is a `ZMQ_PROTOCOL_ERROR_*` value
    /// (e.g. 0x11000002 mechanism mismatch: a plaintext peer against a CURVE socket).
    case handshakeFailedProtocol(endpoint: String, code: UInt32)
    /// The handshake failed without details (e.g. the connection closed during it).
    case handshakeFailedNoDetail(endpoint: String)
    /// A listening socket accepted a connection.
    case accepted(endpoint: String)
    /// The socket is listening on the endpoint.
    case listening(endpoint: String)
    /// A connection's underlying descriptor was closed.
    case closed(endpoint: String)
    /// A connect is pending (asynchronous connect in progress).
    case connectDelayed(endpoint: String)
    /// A reconnect will be attempted after `intervalMs`.
    case connectRetried(endpoint: String, intervalMs: Int)
    /// Monitoring stopped (the monitored socket closed or monitoring was switched off).
    case monitorStopped
    /// Any other event (bind/accept/close failures, …) with its raw libzmq values.
    case other(event: UInt16, value: UInt32, endpoint: String)

    /// Decodes a monitor message: frame 1 is 6 bytes (uint16 event, uint32 value, host byte
    /// order), frame 2 the endpoint. Returns nil for a malformed message.
    init?(frames: [[UInt8]]) {
        guard frames.count >= 2, frames[0].count == 6 else { return nil }
        let event = frames[0].withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) }
        let value = frames[0].withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
        let endpoint = String(decoding: frames[1], as: UTF8.self)
        switch Int32(event) {
        case ZMQ_EVENT_CONNECTED: self = .connected(endpoint: endpoint)
        case ZMQ_EVENT_DISCONNECTED: self = .disconnected(endpoint: endpoint)
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: self = .handshakeSucceeded(endpoint: endpoint)
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: self = .handshakeFailedAuth(endpoint: endpoint, statusCode: Int(value))
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: self = .handshakeFailedProtocol(endpoint: endpoint, code: value)
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: self = .handshakeFailedNoDetail(endpoint: endpoint)
        case ZMQ_EVENT_ACCEPTED: self = .accepted(endpoint: endpoint)
        case ZMQ_EVENT_LISTENING: self = .listening(endpoint: endpoint)
        case ZMQ_EVENT_CLOSED: self = .closed(endpoint: endpoint)
        case ZMQ_EVENT_CONNECT_DELAYED: self = .connectDelayed(endpoint: endpoint)
        case ZMQ_EVENT_CONNECT_RETRIED: self = .connectRetried(endpoint: endpoint, intervalMs: Int(value))
        case ZMQ_EVENT_MONITOR_STOPPED: self = .monitorStopped
        default: self = .other(event: event, value: value, endpoint: endpoint)
        }
    }
}
