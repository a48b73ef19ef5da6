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
    private let context: ZMQContext
    private var dealer: ZMQSocket
    private var subscriber: ZMQSocket
    private let control: ZMQSocket
    private let wake: ZMQSocket
    private var poller = Poller()

    var replica: ReplicaSync
    var fence: CameraFence
    var appEvents: RingBuffer<AppFacingEvent>
    var fenceLog: RingBuffer<FenceRecord>
    private let history: NodeHistoryFile?
    /// K2: what this node runs, as of the last state in which it was alive in the cluster.
    var assertions: [AppAssertion] = []
    private(set) var registered = false

    private var nextRequestID: UInt64
    private var pending: [UInt64: PendingRequest] = [:]
    private var lastSentToCoordinator: Int64 = 0
    private var lastHeardFromCoordinator: Int64
    private var coordinatorSilent = false
    var isCoordinatorReachable: Bool { !coordinatorSilent }
    private var reconnectDelay: Int64
    private var nextReconnect: Int64 = 0
    private var knownTerm: UInt64 = 0
    private var snapshotRequested = false
    private var attachRequested = false
    private var snapshotWanted = false
    private var subscriptionLive = false

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
        history?.append(NodeHistoryEntry(kind: .start, node: settings.config.id.rawValue, ms: Clock.wallMilliseconds()))
        // Request ids must not repeat across restarts of this node (K5 windows live in the coordinator).
        nextRequestID = UInt64(Clock.wallMilliseconds()) << 16
        reconnectDelay = settings.heartbeatIntervalMilliseconds
        lastHeardFromCoordinator = Clock.monotonicMilliseconds()

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

    private static func makeDealer(_ context: ZMQContext, _ settings: NodeSettings) throws -> ZMQSocket {
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

    private static func makeSubscriber(_ context: ZMQContext, _ settings: NodeSettings) throws -> ZMQSocket {
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

    private func registerPollItems() {
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

    private func nextDeadline() -> Int64 {
        var deadline = lastSentToCoordinator + settings.heartbeatIntervalMilliseconds
        deadline = min(deadline, lastHeardFromCoordinator + settings.heartbeatIntervalMilliseconds * settings.liveness + 1)
        for request in pending.values { deadline = min(deadline, request.sentAt + settings.requestRetryMilliseconds) }
        return deadline
    }

    // MARK: Joining (K2)

    /// Register (re-asserting what this node runs), then ask for a snapshot. The SUB socket is
    /// already subscribed, so nothing published after the snapshot can be missed.
    /// `resync`: also replace the replica with a fresh snapshot. A coordinator restart does not need
    /// it (the journal brings back the same sequence; a gap would show in its heartbeats), so the
    /// replica keeps applying batches in order and no app-facing event is skipped.
    func join(reason: String, resync: Bool = true) {
        registered = false
        if resync {
            replica.resync()
            snapshotRequested = false
            snapshotWanted = false
        }
        // Requests to a previous coordinator incarnation are abandoned: register/snapshot restart here.
        for (requestID, request) in pending {
            switch request.origin {
            case .register, .attach: pending[requestID] = nil
            case .snapshot where resync: pending[requestID] = nil
            case .snapshot: break
            case .control: break
            }
        }
        var registration = settings.config.registration
        registration.assertions = assertions
        // A display attaches with its own command once its device is alive (the device may join later).
        if case .display(var display) = registration.attributes {
            display.attachedTo = nil
            registration.attributes = .display(display)
        }
        attachRequested = false
        logger.info("joining", metadata: ["node": "\(id)", "reason": "\(reason)", "assertions": "\(assertions.count)"])
        send(.request(.registerNode(registration), sender: id.rawValue, requestID: takeRequestID(), term: knownTerm),
             origin: .register)
        if resync { requestSnapshot() }
    }

    /// Asks for a snapshot once the subscription is known to be live (the SUB socket has received
    /// something since it connected): then nothing published after the snapshot can be lost to the
    /// slow-joiner race. Heartbeats arrive every interval, so this waits at most one interval.
    private func requestSnapshot() {
        snapshotWanted = true
        guard subscriptionLive, !snapshotRequested else { return }
        snapshotWanted = false
        snapshotRequested = true
        send(.snapshotRequest(sender: id.rawValue, requestID: takeRequestID(), term: knownTerm), origin: .snapshot)
    }

    private func takeRequestID() -> UInt64 {
        nextRequestID += 1
        return nextRequestID
    }

    private func send(_ envelope: Envelope, origin: PendingRequest.Origin) {
        let bytes = envelope.serializedBytes()
        let now = Clock.monotonicMilliseconds()
        pending[envelope.requestID] = PendingRequest(origin: origin, bytes: bytes, sentAt: now, attempts: 1)
        transmit(bytes)
    }

    private func transmit(_ bytes: [UInt8]) {
        do {
            _ = try dealer.send([bytes], dontWait: true)
            lastSentToCoordinator = Clock.monotonicMilliseconds()
        } catch {
            logger.debug("send to coordinator failed", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Replies from the coordinator

    private func drainReplies() throws {
        while let message = try dealer.receive(dontWait: true) {
            heardFromCoordinator()
            guard message.frames.count == 1, let envelope = try? Envelope.decode(message.frames[0]) else {
                logger.warning("undecodable reply from coordinator", metadata: ["frames": "\(message.frames.count)"])
                continue
            }
            noteTerm(envelope.term)
            guard let request = pending.removeValue(forKey: envelope.requestID) else { continue }
            switch request.origin {
            case .register:
                handleRegisterReply(envelope)
            case .attach:
                if case .error(let error)? = envelope.body {
                    logger.warning("attach refused", metadata: ["node": "\(id)", "message": "\(error.message)"])
                }
            case .snapshot:
                snapshotRequested = false
                handleSnapshotReply(envelope)
            case .control(let identity, let clientRequestID, let command):
                if case .error(let error)? = envelope.body, case .startPiP(let app, _)? = command, error.pipFailure != .unspecified {
                    record(AppFacingEvent(sequence: replica.sequence, app: app, name: "failedToStartPictureInPicture",
                                          details: [("reason", "\(error.pipFailure)"), ("message", error.message)]))
                }
                var answer = envelope
                answer.requestID = clientRequestID
                answer.sender = id.rawValue
                replyToControl(identity, answer)
            }
        }
    }

    private func handleRegisterReply(_ envelope: Envelope) {
        switch envelope.body {
        case .ack(let ack)?:
            registered = true
            logger.info("registered", metadata: ["node": "\(id)", "sequence": "\(ack.sequence)", "term": "\(envelope.term)"])
            attachIfConfigured()
        case .error(let error)?:
            logger.error("registration refused", metadata: ["node": "\(id)", "code": "\(error.code)", "message": "\(error.message)"])
        default:
            break
        }
    }

    private func handleSnapshotReply(_ envelope: Envelope) {
        guard case .snapshot(let snapshot)? = envelope.body else { return }
        let state: ClusterState
        let policy: PolicySettings
        do {
            state = try snapshot.domainState()
            policy = try snapshot.domainSettings()
        } catch {
            logger.error("undecodable snapshot", metadata: ["error": "\(error)"])
            requestSnapshot()
            return
        }
        let outcome = replica.receiveSnapshot(sequence: snapshot.sequence, term: snapshot.term, state: state, settings: policy)
        knownTerm = max(knownTerm, snapshot.term)
        logger.info("synced from snapshot", metadata: ["node": "\(id)", "sequence": "\(snapshot.sequence)", "term": "\(snapshot.term)"])
        for batch in replica.coveredBySnapshot {
            for event in AppFacingEvent.from(batch.events, sequence: batch.sequence, device: id) { record(event) }
        }
        for decision in fence.adopt(replica.state) { record(decision) }
        if registered, replica.state.nodes[id]?.alive != true {
            // Declared dead while we could not hear it (a partition): rejoin with what we run (K2).
            join(reason: "snapshot shows this node is not alive")
            return
        }
        handle(outcome)
        refreshAssertions()
        attachIfConfigured()
    }

    /// A display whose config names a device attaches to it once both are alive in the replica.
    private func attachIfConfigured() {
        guard registered, !attachRequested, replica.phase == .synced,
              case .display(let display) = settings.config.registration.attributes, let device = display.attachedTo,
              let me = replica.state.nodes[id], me.alive, me.attachedTo == nil,
              replica.state.nodes[device]?.alive == true else { return }
        attachRequested = true
        send(.request(.attachDisplay(display: id, device: device), sender: id.rawValue,
                      requestID: takeRequestID(), term: knownTerm), origin: .attach)
    }

    // MARK: Published events

    private func drainSubscriber() throws {
        while let message = try subscriber.receive(dontWait: true) {
            heardFromCoordinator()
            if !subscriptionLive {
                subscriptionLive = true
                if snapshotWanted { requestSnapshot() }
            }
            guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) else { continue }
            switch envelope.body {
            case .eventBatch(let wire)?:
                guard let command = try? wire.domainCommand(), let events = try? wire.domainEvents() else {
                    logger.warning("undecodable event batch", metadata: ["sequence": "\(wire.sequence)"])
                    continue
                }
                let batch = PublishedBatch(sequence: wire.sequence, term: wire.term, time: wire.time,
                                           command: command, events: events)
                handle(replica.receive(batch))
            case .coordinatorHeartbeat(let heartbeat)?:
                if noteTerm(heartbeat.term) { continue }
                if replica.isBehind(coordinatorTerm: heartbeat.term, lastSequence: heartbeat.lastSequence) {
                    logger.info("behind the coordinator: resync", metadata: [
                        "node": "\(id)", "have": "\(replica.sequence)", "coordinator": "\(heartbeat.lastSequence)"])
                    replica.resync()
                    requestSnapshot()
                }
            default:
                continue
            }
        }
    }

    /// A new coordinator term means the coordinator restarted: rejoin (K2). Returns true if it rejoined.
    @discardableResult
    private func noteTerm(_ term: UInt64) -> Bool {
        guard term > knownTerm else { return false }
        let first = knownTerm == 0
        knownTerm = term
        if !first {
            join(reason: "coordinator term \(term)", resync: false)
            return true
        }
        return false
    }

    private func handle(_ outcome: ReplicaSync.Outcome) {
        switch outcome {
        case .nothing:
            break
        case .needSnapshot(let reason):
            logger.info("resync", metadata: ["node": "\(id)", "reason": "\(reason)"])
            requestSnapshot()
        case .applied(let batches):
            for batch in batches { applied(batch) }
            refreshAssertions()
            attachIfConfigured()
        }
    }

    private func applied(_ batch: PublishedBatch) {
        for event in batch.events {
            if let decision = fence.observe(event) { record(decision, sequence: batch.sequence) }
            switch event {
            case .nodeJoined(let node, _), .nodeRejoined(let node, _):
                // Our device (re)joined: attach again, as a display plugged into a rebooted iPad would.
                if case .display(let display) = settings.config.registration.attributes, display.attachedTo == node {
                    attachRequested = false
                }
            default:
                break
            }
            if case .nodeLeft(let node, let reason) = event, node == id, reason == .declaredDead {
                logger.warning("this node was declared dead: rejoining", metadata: ["node": "\(id)"])
                join(reason: "declared dead")
            }
        }
        for event in AppFacingEvent.from(batch.events, sequence: batch.sequence, device: id) { record(event) }
    }

    /// K2: remember what this node runs, from states in which it is alive.
    private func refreshAssertions() {
        guard replica.phase == .synced, replica.state.nodes[id]?.alive == true else { return }
        assertions = replica.state.apps.values.filter { $0.id.device == id && $0.scene.isRunning }
            .sorted { $0.id < $1.id }
            .map { app in
                AppAssertion(bundleID: app.id.bundleID, scene: app.scene, session: app.session?.configuration,
                             sessionWantsToRun: app.session?.wantsToRun ?? false, pip: app.pip?.setup)
            }
    }

    private func record(_ event: AppFacingEvent) {
        appEvents.append(event)
        history?.append(NodeHistoryEntry(app: event, node: id, ms: Clock.wallMilliseconds()))
        logger.notice("\(event.description)", metadata: ["node": "\(id)"])
    }

    private func record(_ decision: CameraFence.Decision, sequence: UInt64? = nil) {
        let entry = FenceRecord(decision: decision, sequence: sequence ?? replica.sequence,
                                wallMilliseconds: Clock.wallMilliseconds())
        fenceLog.append(entry)
        history?.append(NodeHistoryEntry(fence: entry, node: id))
        if case .refusedStale = decision.kind {
            logger.warning("\(entry.description)", metadata: ["node": "\(id)"])
        } else {
            logger.info("\(entry.description)", metadata: ["node": "\(id)"])
        }
    }

    private func heardFromCoordinator() {
        lastHeardFromCoordinator = Clock.monotonicMilliseconds()
        if coordinatorSilent {
            coordinatorSilent = false
            reconnectDelay = settings.heartbeatIntervalMilliseconds
            logger.info("coordinator is back", metadata: ["node": "\(id)"])
            join(reason: "coordinator back")
        }
    }

    // MARK: Control clients

    private func drainControl() throws {
        while let message = try control.receive(dontWait: true) {
            guard message.frames.count == 2, let identity = message.frames.first else { continue }
            let envelope: Envelope
            do {
                envelope = try Envelope.decode(message.frames[1])
            } catch {
                replyToControl(identity, .error(error, requestID: 0, term: knownTerm, sender: id.rawValue))
                continue
            }
            switch envelope.body {
            case .command:
                let command: Command
                do {
                    command = try envelope.domainCommand()
                } catch {
                    replyToControl(identity, .error(Camsync_V1_Error(error), requestID: envelope.requestID,
                                                    term: knownTerm, sender: id.rawValue))
                    continue
                }
                send(.request(command, sender: id.rawValue, requestID: takeRequestID(), term: knownTerm),
                     origin: .control(identity: identity, requestID: envelope.requestID, command: command))
            case .nodeStatusRequest(let request):
                replyToControl(identity, statusEnvelope(requestID: envelope.requestID, afterSequence: request.afterSequence))
            default:
                replyToControl(identity, .error(Camsync_V1_Error(code: .unexpectedMessage,
                    message: "a node's control socket takes command and node_status_request bodies"),
                    requestID: envelope.requestID, term: knownTerm, sender: id.rawValue))
            }
        }
    }

    private func replyToControl(_ identity: [UInt8], _ envelope: Envelope) {
        _ = try? control.send([identity, envelope.serializedBytes()], dontWait: true)
    }

    // MARK: Timers

    private func runTimers() throws {
        let now = Clock.monotonicMilliseconds()
        if !coordinatorSilent, now - lastHeardFromCoordinator > settings.heartbeatIntervalMilliseconds * settings.liveness {
            coordinatorSilent = true
            nextReconnect = now + reconnectDelay
            logger.warning("coordinator silent", metadata: [
                "node": "\(id)", "silentForMs": "\(now - lastHeardFromCoordinator)"])
        }
        if coordinatorSilent, now >= nextReconnect {
            try reconnect()
            reconnectDelay = min(reconnectDelay * 2, 8_000)
            nextReconnect = now + reconnectDelay
        }
        for (requestID, request) in pending where now - request.sentAt >= settings.requestRetryMilliseconds {
            // Joining requests (register, snapshot, attach) retry until answered; a user's action gives up.
            if request.attempts >= settings.requestAttempts, case .control(let identity, let clientRequestID, _) = request.origin {
                pending[requestID] = nil
                replyToControl(identity, .error(Camsync_V1_Error(code: .overloaded,
                    message: "no answer from the coordinator at \(settings.coordinatorCommandEndpoint) after \(request.attempts) attempts: is it running?"),
                    requestID: clientRequestID, term: knownTerm, sender: id.rawValue))
                continue
            }
            pending[requestID]?.attempts += 1
            pending[requestID]?.sentAt = now
            transmit(request.bytes)
        }
        if now - lastSentToCoordinator >= settings.heartbeatIntervalMilliseconds {
            transmit(Envelope.nodeHeartbeat(sender: id.rawValue, time: Instant(milliseconds: Clock.wallMilliseconds()),
                                            term: knownTerm).serializedBytes())
        }
    }

    /// Fresh sockets after a long silence: drops whatever was queued for a dead connection.
    private func reconnect() throws {
        logger.info("reconnecting to coordinator", metadata: ["node": "\(id)", "backoffMs": "\(reconnectDelay)"])
        dealer.close()
        subscriber.close()
        dealer = try Self.makeDealer(context, settings)
        subscriber = try Self.makeSubscriber(context, settings)
        subscriptionLive = false
        registerPollItems()
        for request in pending.values { transmit(request.bytes) }
    }
}
