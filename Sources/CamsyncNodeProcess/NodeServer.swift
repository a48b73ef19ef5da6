public import CamsyncNode
public import Logging
import ZeroMQ

/// A running node: one dedicated thread owns its sockets, replica and fence.
public final class NodeServer: @unchecked Sendable {
    public let settings: NodeSettings
    private let logger: Logger
    private let loopThread: LoopThread

    public init(settings: NodeSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        loopThread = LoopThread(context: try ZMQContext(ioThreads: 1), name: "camsync-node")
    }

    /// Binds the control socket, starts joining the cluster, and returns the control endpoint.
    @discardableResult
    public func start() throws -> String {
        let settings = self.settings, logger = self.logger, context = loopThread.context
        return try loopThread.start { wake in
            let loop = try NodeLoop(settings: settings, context: context, wakeEndpoint: wake, logger: logger)
            return (loop.controlEndpoint, { shouldStop in
                do {
                    try loop.run(until: shouldStop)
                } catch {
                    logger.critical("node loop stopped: \(error)")
                }
                loop.close()
            })
        }
    }

    public func stop() { loopThread.stop() }

    public func wait() { loopThread.wait() }
}
