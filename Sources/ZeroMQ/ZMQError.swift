import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// errno is read before `operation` is built, so building the text cannot disturb it.
    static func last(_ operation: @autoclosure () -> String) -> ZMQError {
        let code = zmq_errno()
        return ZMQError(code: code, operation: operation())
    }

    public var description: String { "\(operation): \(message) (errno \(code))" }
}

extension ZMQError {
    /// The operation was attempted on a socket that has already been closed.
    public var isSocketClosed: Bool { code == ENOTSOCK }
    /// The context was shut down or terminated (libzmq's ETERM).
    public var isContextTerminated: Bool { code == ETERM }

    static func socketClosed(_ operation: String) -> ZMQError {
        ZMQError(code: ENOTSOCK, operation: "\(operation) (socket is closed)")
    }

    public static func invalidArgument(_ operation: String) -> ZMQError {
        ZMQError(code: EINVAL, operation: operation)
    }
}

/// Runs a libzmq call that returns -1 on failure, retrying while it fails with EINTR.
/// Returns the call's last result; on -1, `zmq_errno()` is left set for the caller.
@inline(__always)
func retryingEINTR(_ call: () -> Int32) -> Int32 {
    while true {
        let rc = call()
        if rc != -1 || zmq_errno() != EINTR { return rc }
    }
}
