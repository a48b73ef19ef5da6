import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ
import Foundation

/// The coordinator's loop, confined to its thread: ROUTER in, PUB out, engine, journal.
/// One turn: wait for traffic or the nearest deadline → handle a batch of requests →
/// commit their journal entries in one transaction → send replies → publish events → timers.
final class CoordinatorLoop {
    let settings: CoordinatorSettings
    let logger: Logger
    let endpoints: CoordinatorServer.Endpoints
    private let router: ZMQSocket
    private let publisher: ZMQSocket
    private let wake: ZMQSocket
    private let zap: ZAPAuthenticator?
    private let journal: Journal
    private let poller = Poller()
    var core: CoordinatorCore
    var metrics = CoordinatorMetrics()

    /// Work of the current turn, flushed by `finishTurn()`.
    private var pendingEntries: [JournalEntry] = []
    private var pendingReplies: [(identity: [UInt8], envelope: Envelope)] = []
    private var pendingPublications: [(topic: String, envelope: Envelope)] = []
    private var lastSnapshotSequence: UInt64
    private var lastEngineTime: Int64
    private let graceStart: Int64
    private var nextHeartbeat: Int64 = 0
    private var nextStatsLog: Int64 = 0

    init(settings: CoordinatorSettings, context: ZMQContext, wakeEndpoint: String, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        journal = try Journal(directory: settings.dataDirectory, durability: settings.durability)
        let recovered = try CoordinatorRecovery.recover(journal: journal, settings: settings, logger: logger)
        core = recovered.core
        lastSnapshotSequence = recovered.snapshotSequence
        lastEngineTime = recovered.lastTime

        if let security = settings.security {
            zap = try ZAPAuthenticator(context: context,
                                       allowedPublicKeys: Set(security.nodeKeys.values).union(security.adminKeys))
        } else {
            zap = nil
        }
        router = try ZMQSocket(context, .router)
        publisher = try ZMQSocket(context, .pub)
        wake = try ZMQSocket(context, .pair)
        for socket in [router, publisher] {
            try socket.set([.linger(milliseconds: 1000), .maxMessageSize(settings.maxMessageSize)])
            if let security = settings.security {
                try socket.set([.zapDomain("camsync"), .curveServer(true), .curveSecretKey(security.secretKey)])
            }
        }
        try router.set([.routerHandover(true), .routerMandatory(false), .sendHighWaterMark(100_000),
                        .receiveHighWaterMark(100_000)])
        try publisher.set([.sendHighWaterMark(100_000)])
        // Each endpoint setting may list several, comma-separated (e.g. a network address for
        // nodes plus an ipc path for local admin tools); the first is reported as the endpoint.
        for endpoint in Self.split(settings.commandEndpoint) { try router.bind(endpoint) }
        for endpoint in Self.split(settings.eventEndpoint) { try publisher.bind(endpoint) }
        try wake.bind(wakeEndpoint)
        endpoints = .init(command: try router.lastEndpoint, event: try publisher.lastEndpoint)
        poller.register(router, for: .readable)
        poller.register(wake, for: .readable)
        graceStart = Clock.monotonicMilliseconds()
        logger.info("coordinator serving", metadata: [
            "term": "\(core.term)", "sequence": "\(core.sequence)", "commands": "\(endpoints.command)",
            "events": "\(endpoints.event)", "curve": "\(settings.security != nil)",
            "journal": "\(settings.durability.rawValue)",
        ])
    }

    static func split(_ endpoints: String) -> [String] {
        endpoints.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func close() {
        for socket in [router, publisher, wake] { socket.close() }
        zap?.stop()
    }

    func run(until shouldStop: () -> Bool) throws {
        while !shouldStop() {
            let now = Clock.monotonicMilliseconds()
            let timeout = max(0, min(nextDeadline(now: now) - now, settings.heartbeatIntervalMilliseconds))
            let ready = try poller.poll(timeoutMs: Int(timeout))
            if ready.contains(where: { $0.socket === wake }) { _ = try wake.receive(dontWait: true) }
            if shouldStop() { break }
            if ready.contains(where: { $0.socket === router }) {
                try drainRequests()
            }
            try runTimers()
            try finishTurn()
        }
        try finishTurn()
        logger.info("coordinator stopped", metadata: statsMetadata())
    }

    // MARK: Requests

    /// Takes up to `batchLimit` requests, or what arrives within 20 ms, whichever ends first, so one
    /// turn (and the replies waiting for its group commit) stays short whatever the frames are.
    private func drainRequests() throws {
        var handled = 0
        let started = Clock.monotonicMilliseconds()
        while handled < settings.batchLimit, let message = try router.receive(dontWait: true) {
            handled += 1
            handle(message)
            if handled % 64 == 0, Clock.monotonicMilliseconds() - started > 20 { break }
        }
    }

    private func handle(_ message: ZMQMessage) {
        guard message.frames.count == 2, let identity = message.frames.first else {
            metrics.badFrame(reason: "frames")
            if let identity = message.frames.first, message.frames.count > 2 {
                reply(to: identity, .error(Camsync_V1_Error(code: .malformed,
                    message: "expected exactly one frame (one Envelope) after the routing id, got \(message.frames.count - 1)"),
                    requestID: 0, term: core.term))
            }
            return
        }
        let envelope: Envelope
        do {
            envelope = try Envelope.decode(message.frames[1])
        } catch {
            metrics.badFrame(reason: "\(error.code)")
            reply(to: identity, .error(error, requestID: 0, term: core.term))
            return
        }
        let sender = envelope.sender
        let now = Clock.monotonicMilliseconds()
        let isAdmin: Bool
        switch authenticate(sender: sender, userID: message.userID) {
        case .success(let admin): isAdmin = admin
        case .failure(let refusal):
            metrics.badFrame(reason: "forbidden")
            reply(to: identity, .error(Camsync_V1_Error(code: .forbidden, message: refusal.message),
                                       requestID: envelope.requestID, term: core.term))
            return
        }
        core.noteTraffic(from: sender, at: now)
        switch envelope.body {
        case .command:
            let command: Command
            do {
                command = try envelope.domainCommand()
            } catch {
                metrics.badFrame(reason: "malformed")
                reply(to: identity, .error(Camsync_V1_Error(error), requestID: envelope.requestID, term: core.term))
                return
            }
            apply(command, wire: envelope.command, from: sender, requestID: envelope.requestID, isAdmin: isAdmin, replyTo: identity)
        case .snapshotRequest:
            var snapshot = Envelope.snapshot(core.state, sequence: core.sequence, term: core.term,
                                             requestID: envelope.requestID, settings: settings.policy)
            if case .snapshot(var body)? = snapshot.body {
                body.liveness = core.silence(at: now).map { node, silent in
                    var entry = Camsync_V1_NodeLiveness()
                    entry.node = node.rawValue
                    entry.silentMs = silent
                    return entry
                }
                snapshot.body = .snapshot(body)
            }
            reply(to: identity, snapshot)
        case .nodeHeartbeat:
            break
        default:
            metrics.badFrame(reason: "unexpectedMessage")
            reply(to: identity, .error(Camsync_V1_Error(code: .unexpectedMessage,
                message: "the coordinator takes command, snapshot_request and node_heartbeat bodies only"),
                requestID: envelope.requestID, term: core.term))
        }
    }

    /// Runs a command through the core; accepted ones are journaled and published at the end of the turn.
    /// `wire`: the command as it arrived (reused for the journal and the batch); nil for the coordinator's own.
    private func apply(_ command: Command, wire: Camsync_V1_Command? = nil, from sender: String, requestID: UInt64,
                       isAdmin: Bool, replyTo identity: [UInt8]?) {
        let time = engineTime()
        let (outcome, isRetry) = core.handle(command, from: sender, requestID: requestID, isAdmin: isAdmin,
                                             at: Instant(milliseconds: time))
        switch outcome {
        case .accepted(let sequence, let events):
            if isRetry {
                metrics.retried()
            } else {
                metrics.accepted()
                if case .declareNodeDead(let node) = command {
                    metrics.declaredDead()
                    logger.warning("node declared dead", metadata: ["node": "\(node)", "sequence": "\(sequence)"])
                }
                let wireCommand = wire ?? Camsync_V1_Command(command)
                pendingEntries.append(JournalEntry(
                    sequence: sequence, term: core.term, timeMilliseconds: time, node: sender, requestID: requestID,
                    command: WireCodec.encode(wireCommand)))
                let batch = Camsync_V1_EventBatch(
                    sequence: sequence, term: core.term, time: Instant(milliseconds: time),
                    originNode: sender == CoordinatorCore.selfSender ? nil : NodeID(sender),
                    originRequestID: requestID, wireCommand: wireCommand, events: events)
                pendingPublications.append((EventTopic.topic(for: command, in: core.state), .eventBatch(batch)))
            }
            if let identity { reply(to: identity, .ack(sequence: sequence, requestID: requestID, term: core.term)) }
        case .refused(let code, let message, let rejection):
            if isRetry { metrics.retried() } else { metrics.refused() }
            guard let identity else {
                logger.error("coordinator's own command refused", metadata: ["command": "\(command)", "why": "\(message)"])
                return
            }
            var error = rejection.map(Camsync_V1_Error.init) ?? Camsync_V1_Error(code: code.wire, message: message)
            error.code = code.wire
            reply(to: identity, .error(error, requestID: requestID, term: core.term))
        }
    }

    /// Engine time: wall-clock milliseconds, never going backwards across restarts.
    private func engineTime() -> Int64 {
        lastEngineTime = max(lastEngineTime, Clock.wallMilliseconds())
        return lastEngineTime
    }

    private func reply(to identity: [UInt8], _ envelope: Envelope) {
        pendingReplies.append((identity, envelope))
    }

    // MARK: Authentication

    private struct Refusal: Error { var message: String }

    /// Binds the claimed sender to the CURVE key the ZAP handler admitted. Without keys (lab mode)
    /// the sender is trusted and only the sender name "admin" is an admin.
    private func authenticate(sender: String, userID: String?) -> Result<Bool, Refusal> {
        guard !sender.isEmpty else { return .failure(Refusal(message: "envelope has no sender")) }
        guard sender.utf8.count <= maxIdentifierBytes else {
            return .failure(Refusal(message: "sender is longer than \(maxIdentifierBytes) bytes"))
        }
        guard let security = settings.security else {
            return .success(sender == "admin")
        }
        guard let key = userID else { return .failure(Refusal(message: "no authenticated key on this connection")) }
        if security.adminKeys.contains(key) { return .success(true) }
        guard security.nodeKeys[sender] == key else {
            return .failure(Refusal(message: "this key is not bound to node '\(sender)'"))
        }
        return .success(false)
    }

    // MARK: Timers

    private func nextDeadline(now: Int64) -> Int64 {
        var deadline = nextHeartbeat
        if let liveness = core.nextLivenessDeadline(graceStart: graceStart) { deadline = min(deadline, liveness) }
        if let (due, _) = core.engine.nextDeadline() {
            let inMs = due.milliseconds - Clock.wallMilliseconds()
            deadline = min(deadline, now + max(0, inMs))
        }
        return deadline
    }

    /// The counters (also exported through swift-metrics), for log lines.
    private func statsMetadata() -> Logger.Metadata {
        ["sequence": "\(core.sequence)", "term": "\(core.term)", "accepted": "\(metrics.commandsAccepted)",
         "refused": "\(metrics.commandsRefused)", "retries": "\(metrics.retriesAnswered)",
         "badFrames": "\(metrics.badFrames)", "declaredDead": "\(metrics.nodesDeclaredDead)"]
    }

    private func runTimers() throws {
        let now = Clock.monotonicMilliseconds()
        if now >= nextStatsLog {
            if nextStatsLog > 0 { logger.info("coordinator stats", metadata: statsMetadata()) }
            nextStatsLog = now + 60_000
        }
        for node in core.silentNodes(at: now, graceStart: graceStart) {
            apply(.declareNodeDead(node), from: CoordinatorCore.selfSender, requestID: core.sequence + 1,
                  isAdmin: true, replyTo: nil)
        }
        while let (due, command) = core.engine.nextDeadline(), due.milliseconds <= Clock.wallMilliseconds() {
            let before = core.sequence
            apply(command, from: CoordinatorCore.selfSender, requestID: core.sequence + 1, isAdmin: true, replyTo: nil)
            if core.sequence == before { break }
        }
        if now >= nextHeartbeat {
            nextHeartbeat = now + settings.heartbeatIntervalMilliseconds
            pendingPublications.append((EventTopic.heartbeat, .coordinatorHeartbeat(
                term: core.term, lastSequence: core.sequence, time: Instant(milliseconds: Clock.wallMilliseconds()))))
        }
    }

    // MARK: End of turn

    /// Group commit, then replies, then publications, then maybe a snapshot.
    private func finishTurn() throws {
        if !pendingEntries.isEmpty {
            try journal.append(pendingEntries)
            metrics.groupCommit(size: pendingEntries.count)
            pendingEntries.removeAll(keepingCapacity: true)
        }
        for (identity, envelope) in pendingReplies {
            do {
                _ = try router.send([identity, envelope.serializedBytes()], dontWait: true)
            } catch {
                logger.debug("reply not delivered", metadata: ["error": "\(error)"])
            }
        }
        pendingReplies.removeAll(keepingCapacity: true)
        for (topic, envelope) in pendingPublications {
            _ = try publisher.send([Array(topic.utf8), envelope.serializedBytes()], dontWait: true)
        }
        pendingPublications.removeAll(keepingCapacity: true)
        if settings.durability != .off, core.sequence >= lastSnapshotSequence + settings.snapshotEvery {
            try journal.writeSnapshot(JournalSnapshot(sequence: core.sequence, term: core.term,
                                                      state: WireCodec.encode(core.state)),
                                      keepingCommands: UInt64(settings.retryWindow))
            lastSnapshotSequence = core.sequence
        }
    }
}
