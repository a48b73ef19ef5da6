#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dedicated OS thread that can be joined: for socket loops that must not run on Swift's
/// cooperative thread pool.
public final class JoinableThread: @unchecked Sendable {
    private let joined = Locked(false)
    private let thread: pthread_t

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread. `body` is `sending`: the values it captures (e.g. the
    /// sockets the thread will own) belong to that thread from now on.
    public init(_ body: sending @escaping () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let rc = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            #else
            guard let context else { return nil }
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, box)
        #if canImport(Darwin)
        guard rc == 0, let thread else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw ZMQError(code: rc, operation: "pthread_create")
        }
        #else
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw ZMQError(code: rc, operation: "pthread_create")
        }
        #endif
        self.thread = thread
    }

    /// Waits for the thread to finish. Only the first call waits; later calls return at once.
    public func join() {
        let first = joined.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { pthread_join(thread, nil) }
    }

    /// Whether the calling thread is this thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }
}
