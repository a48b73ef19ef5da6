import CZMQ

/// An error reported by libzmq: the errno value and libzmq's own text for it.
public struct ZMQError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    /// What the wrapper was doing when libzmq failed (e.g. "bind tcp://127.0.0.1:*").
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.message = String(cString: zmq_strerror(code))
        self.operation = operation
    }

    /// The error for the calling thread's current `zmq_errno()`.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation)
    }

    public var description: String { "\(operation): \(message) (errno \(code))" }
}

/// The version of the libzmq library this process runs against.
public enum LibZMQ {
    public static var version: (major: Int, minor: Int, patch: Int) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (Int(major), Int(minor), Int(patch))
    }

    /// Whether libzmq was built with the named capability ("curve", "ipc", …).
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }
}
