public import Logging
import ZeroMQ
public import CamsyncCoordinatorCore

/// A running coordinator: one dedicated thread owns its sockets, journal and engine
/// (libzmq sockets are not thread safe). This class only starts and stops that thread.
public final class CoordinatorServer: @unchecked Sendable {
    /// The endpoints actually bound (a `tcp://…:*` or port 0 request reads back the real port).
    public struct Endpoints: Sendable, Equatable {
        public var command: String
        public var event: String
    }

    public let settings: CoordinatorSettings
    let logger: Logger
    private let loopThread: LoopThread
    private let exitError = Locked<String?>(nil)

    public init(settings: CoordinatorSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        loopThread = LoopThread(context: try ZMQContext(ioThreads: CoordinatorLoop.ioThreads), name: "camsync-coordinator")
    }

    /// Recovers state from the journal, binds, and starts serving. Returns once serving.
    @discardableResult
    public func start() throws -> Endpoints { try start(etcd: nil) }

    func start(etcd: HALink?) throws -> Endpoints {
        let settings = self.settings, logger = self.logger, context = loopThread.context, exitError = self.exitError
        return try loopThread.start { wake in
            let loop = try CoordinatorLoop(settings: settings, context: context, wakeEndpoint: wake, etcd: etcd, logger: logger)
            return (loop.endpoints, { shouldStop in
                do {
                    try loop.run(until: shouldStop)
                } catch {
                    logger.critical("coordinator loop stopped: \(error)")
                    exitError.withLock { $0 = "\(error)" }
                }
                loop.close()
            })
        }
    }

    /// Stops taking commands, finishes the batch in hand (journal flushed), closes sockets with a
    /// bounded LINGER and joins the loop thread.
    public func stop() { loopThread.stop() }

    /// Blocks until the loop thread ends (after `stop()` or a fatal journal error).
    public func wait() { loopThread.wait() }

    /// Why the loop ended on its own, if it did (a journal write failed: fail-stop).
    public var fatalError: String? { exitError.withLock { $0 } }
}

