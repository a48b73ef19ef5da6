import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ

/// A node's loop, confined to its thread: DEALER to the coordinator, SUB for events,
/// ROUTER for local control clients. Keeps the replica (Clone pattern), the camera fence
/// (C8) and the app-facing event log; forwards user/app actions; rejoins after failures (K2).
final class NodeLoop {
    let settings: NodeSettings
    let logger: Logger
    let id: NodeID
    let controlEndpoint: String
    let context: ZMQContext
    var dealer: ZMQSocket
    var subscriber: ZMQSocket
    let control: ZMQSocket
    let wake: ZMQSocket
    var poller = Poller()

    var replica: ReplicaSync
    var fence: CameraFence
    var appEvents: RingBuffer<AppFacingEvent>
    var fenceLog: RingBuffer<FenceRecord>
    let history: NodeHistoryFile?
    /// K2: what this node runs, as of the last state in which it was alive in the cluster.
    var assertions: [AppAssertion] = []
    var registered = false

    var nextRequestID: UInt64
    var pending: [UInt64: PendingRequest] = [:]
    var lastSentToCoordinator: Int64 = 0
    var lastHeardFromCoordinator: Int64
    /// The last reply on the command socket, or when that socket was last (re)opened.
    var lastReplyOrReconnect: Int64
    var coordinatorSilent = false
    var isCoordinatorReachable: Bool { !coordinatorSilent }
    var reconnectDelay: Int64
    var nextReconnect: Int64 = 0
    var knownTerm: UInt64 = 0
    var snapshotRequested = false
    var attachRequested = false
    var snapshotWanted = false
    var subscriptionLive = false

    struct PendingRequest {
        enum Origin {
            case control(identity: [UInt8], requestID: UInt64, command: Command?)
            case register
            case snapshot
            case attach
        }
        var origin: Origin
        var bytes: [UInt8]
        var sentAt: Int64
        var firstSentAt: Int64
        var attempts: Int
    }

    init(settings: NodeSettings, context: ZMQContext, wakeEndpoint: String, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        self.context = context
        id = settings.config.id
        replica = ReplicaSync()
        fence = CameraFence(host: settings.config.id)
        appEvents = RingBuffer(capacity: settings.historyLimit)
        fenceLog = RingBuffer(capacity: settings.historyLimit)
        history = try settings.historyPath.map { try NodeHistoryFile(path: $0) }
        history?.append(.start(node: settings.config.id, at: Instant(milliseconds: Clock.wallMilliseconds())))
        // Request ids must not repeat across restarts of this node (K5 windows live in the coordinator).
        nextRequestID = UInt64(Clock.wallMilliseconds()) << 16
        reconnectDelay = settings.heartbeatIntervalMilliseconds
        lastHeardFromCoordinator = Clock.monotonicMilliseconds()
        lastReplyOrReconnect = lastHeardFromCoordinator

        dealer = try Self.makeDealer(context, settings)
        subscriber = try Self.makeSubscriber(context, settings)
        control = try ZMQSocket(context, .router)
        try control.set([.linger(milliseconds: 0), .maxMessageSize(1 << 20)])
        try control.bind(settings.controlEndpoint)
        controlEndpoint = try control.lastEndpoint
        wake = try ZMQSocket(context, .pair)
        try wake.bind(wakeEndpoint)
        registerPollItems()
        logger.info("node started", metadata: [
            "node": "\(id)", "kind": "\(settings.config.registration.kind)", "control": "\(controlEndpoint)",
            "coordinator": "\(settings.coordinatorCommandEndpoint)",
        ])
    }

    static func makeDealer(_ context: ZMQContext, _ settings: NodeSettings) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .dealer)
        try socket.set([.linger(milliseconds: 0), .routingID(Array(settings.config.id.rawValue.utf8)),
                        .reconnectInterval(milliseconds: 100), .reconnectIntervalMax(milliseconds: 2000),
                        .maxMessageSize(64 << 20)])
        if let security = settings.security {
            try socket.set([.curveServerKey(security.coordinatorPublicKey), .curvePublicKey(security.publicKey),
                            .curveSecretKey(security.secretKey)])
        }
        try socket.connect(settings.coordinatorCommandEndpoint)
        return socket
    }

    static func makeSubscriber(_ context: ZMQContext, _ settings: NodeSettings) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .sub)
        try socket.set([.linger(milliseconds: 0), .receiveHighWaterMark(100_000),
                        .reconnectInterval(milliseconds: 100), .reconnectIntervalMax(milliseconds: 2000),
                        .maxMessageSize(64 << 20)])
        if let security = settings.security {
            try socket.set([.curveServerKey(security.coordinatorPublicKey), .curvePublicKey(security.publicKey),
                            .curveSecretKey(security.secretKey)])
        }
        // Subscribe before asking for the snapshot (Clone pattern): everything published is wanted.
        try socket.set([.subscribe(Array("ev.".utf8)), .subscribe(Array("hb".utf8))])
        try socket.connect(settings.coordinatorEventEndpoint)
        return socket
    }

    func registerPollItems() {
        poller = Poller()
        poller.register(dealer, for: .readable)
        poller.register(subscriber, for: .readable)
        poller.register(control, for: .readable)
        poller.register(wake, for: .readable)
    }

    func close() {
        for socket in [dealer, subscriber, control, wake] { socket.close() }
    }

    // MARK: Loop

    func run(until shouldStop: () -> Bool) throws {
        join(reason: "start")
        while !shouldStop() {
            let now = Clock.monotonicMilliseconds()
            let timeout = max(0, min(nextDeadline() - now, settings.heartbeatIntervalMilliseconds))
            let ready = try poller.poll(timeoutMs: Int(timeout))
            if shouldStop() { break }
            for item in ready {
                guard let socket = item.socket else { continue }
                if socket === wake { _ = try wake.receive(dontWait: true) }
                if socket === subscriber { try drainSubscriber() }
                if socket === dealer { try drainReplies() }
                if socket === control { try drainControl() }
            }
            try runTimers()
        }
        logger.info("node stopped", metadata: ["node": "\(id)", "sequence": "\(replica.sequence)"])
    }

    func nextDeadline() -> Int64 {
        var deadline = lastSentToCoordinator + settings.heartbeatIntervalMilliseconds
        deadline = min(deadline, lastHeardFromCoordinator + settings.heartbeatIntervalMilliseconds * settings.liveness + 1)
        for request in pending.values { deadline = min(deadline, request.sentAt + settings.requestRetryMilliseconds) }
        return deadline
    }

}
