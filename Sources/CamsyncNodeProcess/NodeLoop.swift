import CamsyncNode
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ

/// A node's loop, confined to its thread: a DEALER to each coordinator (`NodeConnections`: requests
/// on the followed one's, the feed pushed on whichever the leader's is), ROUTER for local control clients. Only sockets, polling and the clocks live here: every
/// protocol decision (the replica, the camera fence, joining and rejoining, retries, silence,
/// reconnects) is `NodeSession`'s, and this loop carries out the `NodeAction`s it returns.
final class NodeLoop {
    let settings: NodeSettings
    let logger: Logger
    let controlEndpoint: String
    let context: ZMQContext
    var connections: NodeConnections
    let control: ZMQSocket
    let wake: ZMQSocket
    var poller = Poller()
    var session: NodeSession
    let history: NodeHistoryFile?
    let metrics = NodeMetrics()

    init(settings: NodeSettings, context: ZMQContext, wakeEndpoint: String, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        self.context = context
        history = try settings.historyPath.map { try NodeHistoryFile(path: $0) }
        session = NodeSession(settings: settings, now: Self.now())

        connections = try NodeConnections(context, session: session)
        control = try ZMQSocket(context, .router)
        try control.set([.linger(milliseconds: 0), .maxMessageSize(1 << 20)])
        try control.bind(settings.controlEndpoint)
        controlEndpoint = try control.lastEndpoint
        wake = try ZMQSocket(context, .pair)
        try wake.bind(wakeEndpoint)
        registerPollItems()
        logger.info("node started", metadata: [
            "node": "\(settings.config.id)", "kind": "\(settings.config.registration.kind)", "control": "\(controlEndpoint)",
            "coordinators": "\(settings.coordinatorCommandEndpoints)",
        ])
        if !settings.untrustedEndpoints.isEmpty {
            logger.warning("not connecting to endpoints of no trusted coordinator (not in the coordinator keys)", metadata: [
                "node": "\(settings.config.id)", "endpoints": "\(settings.untrustedEndpoints)"])
        }
    }

    static func now() -> NodeTime {
        NodeTime(monotonic: Clock.monotonicMilliseconds(), wall: Instant(milliseconds: Clock.wallMilliseconds()))
    }

    func registerPollItems() {
        poller = Poller()
        for socket in connections.sockets { poller.register(socket, for: .readable) }
        poller.register(control, for: .readable)
        poller.register(wake, for: .readable)
    }

    func close() {
        connections.close()
        for socket in [control, wake] { socket.close() }
    }

    // MARK: Loop

    /// K1: the session's timers (heartbeats, silence, retries) run after every turn of the loop, so a
    /// turn takes at most this many messages from one socket, and stops taking them once it has spent
    /// `turnBudgetMilliseconds`: a burst of batches waits for the next turn instead of
    /// holding the heartbeats back. What is left is still queued, and the next poll returns at once.
    static let messagesPerTurn = 256
    var turnBudgetMilliseconds: Int64 { max(1, settings.heartbeatIntervalMilliseconds / 5) }

    func run(until shouldStop: () -> Bool) throws {
        try perform(session.start(now: Self.now()))
        while !shouldStop() {
            let now = Clock.monotonicMilliseconds()
            let timeout = max(0, min(session.nextDeadline - now, settings.heartbeatIntervalMilliseconds))
            let ready = try poller.poll(timeoutMs: Int(timeout))
            if shouldStop() { break }
            let turnEnds = Clock.monotonicMilliseconds() + turnBudgetMilliseconds
            for item in ready {
                guard let socket = item.socket else { continue }
                if socket === wake { _ = try wake.receive(dontWait: true) }
                if connections.sockets.contains(where: { $0 === socket }) {
                    try drain(socket, still: { held in connections.sockets.contains { $0 === held } }, until: turnEnds) {
                        // Two frames: a push of the feed (topic, envelope); one: a reply.
                        try perform($0.frames.count == 2 ? session.receivePublication($0.frames, now: Self.now())
                                                         : session.receiveReply($0.frames, now: Self.now()))
                    }
                }
                if socket === control {
                    try drain(control, still: { $0 === control }, until: turnEnds) { message in
                        guard message.frames.count == 2, let identity = message.frames.first else { return }
                        try perform(session.receiveControl(identity: identity, frame: message.frames[1], now: Self.now()))
                    }
                }
            }
            try perform(session.tick(now: Self.now()))
        }
        logger.info("node stopped", metadata: ["node": "\(settings.config.id)", "sequence": "\(session.replica.sequence)"])
    }

    /// Takes what `socket` has queued, up to `messagesPerTurn` and not past `turnEnds` (monotonic ms);
    /// at least one message when there is one, so every socket makes progress each turn. Stops when
    /// handling a message replaced the socket (`still` is false: a reconnect closed it).
    func drain(_ socket: ZMQSocket, still: (ZMQSocket) -> Bool, until turnEnds: Int64,
               _ handle: (ZMQMessage) throws -> Void) throws {
        for taken in 0..<Self.messagesPerTurn {
            guard still(socket) else { return }
            if taken > 0, Clock.monotonicMilliseconds() >= turnEnds { return }
            guard let message = try socket.receive(dontWait: true) else { return }
            try handle(message)
        }
    }
}

/// The node process's world: its ZeroMQ sockets, history file, metrics and logger.
extension NodeLoop: NodeWorld {
    func perform(_ actions: [NodeAction]) throws {
        try carryOut(actions)
    }

    func send(_ envelope: Envelope) {
        do {
            _ = try connections.followedSocket.send([envelope.serializedBytes()], dontWait: true)
        } catch {
            logger.debug("send to coordinator failed", metadata: ["error": "\(error)"])
        }
    }

    func follow(commandEndpoint: String, serverKey: String?, reopen: Bool) throws {
        if try connections.follow(context, settings, endpoint: commandEndpoint, serverKey: serverKey, reopen: reopen) {
            registerPollItems()
        }
    }

    func replyToControl(identity: [UInt8], _ envelope: Envelope) {
        _ = try? control.send([identity, envelope.serializedBytes()], dontWait: true)
    }

    func appendHistory(_ entry: NodeHistoryEntry) { history?.append(entry) }
    func count(_ metric: NodeMetric) { metrics.record(metric) }
    func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata) {
        logger.log(level: level, message, metadata: metadata)
    }
}
