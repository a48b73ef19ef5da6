import Foundation

/// Runs a socket-owning loop on a dedicated thread (sockets are not thread safe): the loop is
/// built on that thread, reports a `Ready` value once it is serving, runs until `stop()`, and is
/// woken from its poll by a message on an inproc PAIR bound at `wakeEndpoint`.
public final class LoopThread: @unchecked Sendable {
    public let context: ZMQContext
    /// The inproc endpoint the loop binds a PAIR to (and polls) so that `stop()` can wake it.
    public let wakeEndpoint: String
    private let stopRequested = Locked(false)
    private var thread: JoinableThread?

    public init(context: ZMQContext, name: String) {
        self.context = context
        self.wakeEndpoint = "inproc://\(name)-wake-\(UUID().uuidString)"
    }

    /// Starts the thread. `make` runs on it: it builds the loop (binding `wakeEndpoint`) and returns
    /// what to report (`ready`) and the function that runs the loop until its argument says stop.
    /// Returns `ready`, or rethrows what `make` threw.
    public func start<Ready: Sendable>(
        _ make: @escaping @Sendable (_ wakeEndpoint: String) throws -> (ready: Ready, run: (_ shouldStop: () -> Bool) -> Void)
    ) throws -> Ready {
        let result = Locked<Result<Ready, any Error>?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        let stopRequested = self.stopRequested, wake = self.wakeEndpoint
        thread = try JoinableThread {
            let loop: (ready: Ready, run: (() -> Bool) -> Void)
            do {
                loop = try make(wake)
            } catch {
                result.withLock { $0 = .failure(error) }
                semaphore.signal()
                return
            }
            result.withLock { $0 = .success(loop.ready) }
            semaphore.signal()
            loop.run { stopRequested.withLock { $0 } }
        }
        semaphore.wait()
        switch result.withLock({ $0 }) {
        case .success(let ready)?: return ready
        case .failure(let error)?:
            thread?.join()
            throw error
        case nil: throw ZMQError(code: 0, operation: "loop thread ended before it was ready")
        }
    }

    /// Asks the loop to stop, wakes it, waits for the thread, then shuts the context down.
    public func stop() {
        stopRequested.withLock { $0 = true }
        if let wake = try? ZMQSocket(context, .pair) {
            try? wake.set(.linger(milliseconds: 0))
            if (try? wake.connect(wakeEndpoint)) != nil { _ = try? wake.send([[1]], dontWait: true) }
            wake.close()
        }
        thread?.join()
        context.shutdown()
    }

    /// Blocks until the loop thread ends.
    public func wait() { thread?.join() }
}
