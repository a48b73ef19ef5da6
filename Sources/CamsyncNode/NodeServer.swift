public import Logging
import Foundation
import ZeroMQ

/// A running node: one dedicated thread owns its sockets, replica and fence.
public final class NodeServer: @unchecked Sendable {
    public let settings: NodeSettings
    private let logger: Logger
    private let context: ZMQContext
    private let stopRequested = Locked(false)
    private var thread: JoinableThread?
    private let wakeEndpoint = "inproc://camsync-node-wake-\(UUID().uuidString)"

    public init(settings: NodeSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        self.context = try ZMQContext(ioThreads: 1)
    }

    /// Binds the control socket, starts joining the cluster, and returns the control endpoint.
    @discardableResult
    public func start() throws -> String {
        let ready = Locked<Result<String, any Error>?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        let settings = self.settings, logger = self.logger, context = self.context
        let stopRequested = self.stopRequested, wake = self.wakeEndpoint
        thread = try JoinableThread {
            let loop: NodeLoop
            do {
                loop = try NodeLoop(settings: settings, context: context, wakeEndpoint: wake, logger: logger)
            } catch {
                ready.withLock { $0 = .failure(error) }
                semaphore.signal()
                return
            }
            ready.withLock { $0 = .success(loop.controlEndpoint) }
            semaphore.signal()
            do {
                try loop.run(until: { stopRequested.withLock { $0 } })
            } catch {
                logger.critical("node loop stopped: \(error)")
            }
            loop.close()
        }
        semaphore.wait()
        switch ready.withLock({ $0 }) {
        case .success(let endpoint)?: return endpoint
        case .failure(let error)?:
            thread?.join()
            throw error
        case nil: throw NodeConfigError(message: "node thread ended before it was ready")
        }
    }

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

    public func wait() { thread?.join() }
}
