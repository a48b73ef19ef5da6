import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A libzmq context: the I/O threads and the namespace of `inproc://` endpoints.
///
/// The libzmq context is thread safe, so one context may be shared by every thread of a
/// process. Each `ZMQSocket` keeps its context alive, so the context is terminated
/// (`zmq_ctx_term`) only after every socket created from it has been closed and released;
/// termination then waits at most for the sockets' LINGER period.
public final class ZMQContext: @unchecked Sendable {
    // Immutable after init; libzmq's context API is thread safe.
    let handle: UnsafeMutableRawPointer

    /// Creates a context with the given number of background I/O threads (1 is enough for
    /// about a gigabit per second of traffic).
    /// `maxSockets`: libzmq's limit on open sockets (ZMQ_MAX_SOCKETS; its default is 1023).
    public init(ioThreads: Int = 1, maxSockets: Int? = nil) throws {
        guard let handle = zmq_ctx_new() else {
            throw ZMQError.last("zmq_ctx_new")
        }
        let threads = Int32(clamping: max(ioThreads, 0))
        var options: [(Int32, Int32, String)] = [(ZMQ_IO_THREADS, threads, "IO_THREADS")]
        if let maxSockets { options.append((ZMQ_MAX_SOCKETS, Int32(clamping: maxSockets), "MAX_SOCKETS")) }
        for (option, value, name) in options where zmq_ctx_set(handle, option, value) != 0 {
            let error = ZMQError.last("zmq_ctx_set \(name) \(value)")
            _ = zmq_ctx_term(handle)
            throw error
        }
        self.handle = handle
    }

    /// Makes every blocking operation on this context's sockets (in any thread) fail with
    /// ETERM (`ZMQError.isContextTerminated`), and every later operation too, so that
    /// socket-owning threads wind down and close their sockets. Idempotent.
    /// The context itself is terminated when the last reference to it goes away.
    public func shutdown() {
        _ = zmq_ctx_shutdown(handle)
    }

    deinit {
        // Every socket holds a strong reference to its context, so all of them are closed
        // by now; zmq_ctx_term only waits for their lingering messages.
        _ = retryingEINTR { zmq_ctx_term(handle) }
    }
}
