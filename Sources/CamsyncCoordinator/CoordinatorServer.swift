public import Logging
import ZeroMQ
import Foundation

/// A running coordinator: one dedicated thread owns its sockets, journal and engine
/// (libzmq sockets are not thread safe). This class only starts and stops that thread.
public final class CoordinatorServer: @unchecked Sendable {
    /// The endpoints actually bound (a `tcp://…:*` or port 0 request reads back the real port).
    public struct Endpoints: Sendable, Equatable {
        public var command: String
        public var event: String
    }

    public let settings: CoordinatorSettings
    private let logger: Logger
    private let stopRequested = Locked(false)
    private var thread: JoinableThread?
    private let wakeEndpoint = "inproc://camsync-coordinator-wake-\(UUID().uuidString)"
    private let context: ZMQContext
    private let exitError = Locked<String?>(nil)

    public init(settings: CoordinatorSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        self.context = try ZMQContext(ioThreads: 1)
    }

    /// Recovers state from the journal, binds, and starts serving. Returns once serving.
    @discardableResult
    public func start() throws -> Endpoints {
        let ready = Locked<Result<Endpoints, any Error>?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        let settings = self.settings, logger = self.logger, context = self.context
        let stopRequested = self.stopRequested, wake = self.wakeEndpoint, exitError = self.exitError
        thread = try JoinableThread {
            let loop: CoordinatorLoop
            do {
                loop = try CoordinatorLoop(settings: settings, context: context, wakeEndpoint: wake, logger: logger)
            } catch {
                ready.withLock { $0 = .failure(error) }
                semaphore.signal()
                return
            }
            ready.withLock { $0 = .success(loop.endpoints) }
            semaphore.signal()
            do {
                try loop.run(until: { stopRequested.withLock { $0 } })
            } catch {
                logger.critical("coordinator loop stopped: \(error)")
                exitError.withLock { $0 = "\(error)" }
            }
            loop.close()
        }
        semaphore.wait()
        switch ready.withLock({ $0 }) {
        case .success(let endpoints)?: return endpoints
        case .failure(let error)?:
            thread?.join()
            throw error
        case nil: throw CoordinatorStartError(message: "coordinator thread ended before it was ready")
        }
    }

    /// Stops taking commands, finishes the batch in hand (journal flushed), closes sockets with a
    /// bounded LINGER and joins the loop thread.
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

    /// Blocks until the loop thread ends (after `stop()` or a fatal journal error).
    public func wait() { thread?.join() }

    /// Why the loop ended on its own, if it did (a journal write failed: fail-stop).
    public var fatalError: String? { exitError.withLock { $0 } }
}

public struct CoordinatorStartError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
