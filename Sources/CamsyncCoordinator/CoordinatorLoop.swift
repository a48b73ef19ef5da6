import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ
import Foundation
import CamsyncCoordinatorCore

/// The coordinator's shell, confined to its thread: ROUTER in, PUB out, the log, the clock — the real
/// world of `CoordinatorWorld` (`CoordinatorLoop+World.swift`). Every decision is `CoordinatorCore`'s,
/// and the turn's order and the carrying out of its actions are `CoordinatorTurn`'s, which the
/// simulator runs too: this loop sleeps until traffic or the core's next deadline, then runs the
/// turn's phases.
final class CoordinatorLoop {
    let settings: CoordinatorSettings
    let logger: Logger
    let endpoints: CoordinatorServer.Endpoints
    let router: ZMQSocket
    /// The PUB socket, on its own thread (encoding and sending publications off the loop).
    let publisher: EventPublisher
    let wake: ZMQSocket
    let zap: ZAPAuthenticator?
    /// The SQLite journal, or etcd in HA (`etcd`).
    let commandLog: any CommandLog
    /// The log's answers to the writes in flight.
    let answers: LoopInbox<StoreAnswer>
    /// Answers taken from `answers` and not yet handed to the core, the next last.
    var answersAtHand: [StoreAnswer] = []
    /// Whether the poller watches the command socket (not while the core takes no frames: backpressure).
    var pollsCommands = true
    /// HA mode (SPEC K6): the log on etcd, and the supervisor's mailbox; nil for an embedded coordinator.
    let etcd: EtcdLogExecutor?
    let mailbox: HAMailbox?
    let revoke: (@Sendable (Int64) -> Void)?
    /// HA: a SUB to the leader's event endpoint for its pulse (`listen(toLeader:)`), and where it is connected.
    let leaderPulse: ZMQSocket?
    var listeningTo: String?
    let poller = Poller()
    var core: CoordinatorCore
    let metrics = CoordinatorMetrics()

    /// `link`: HA mode's link to etcd (its log and the supervisor's mailbox); nil = the SQLite journal.
    init(settings: CoordinatorSettings, context: ZMQContext, wakeEndpoint: String, etcd link: HALink?, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        answers = try LoopInbox()
        let journal: Journal?
        if let link {
            let log = EtcdLogExecutor(log: link.log)
            commandLog = log
            etcd = log
            mailbox = link.mailbox
            revoke = link.revoke
            journal = nil
        } else {
            let opened = try Journal(directory: settings.dataDirectory, durability: settings.durability)
            commandLog = JournalWriter(journal: opened)
            etcd = nil
            mailbox = nil
            revoke = nil
            journal = opened
        }
        // HA: reads its state from etcd first (the core asks for it), and leads only once elected.
        core = try journal.map { try CoordinatorRecovery.recover(journal: $0, settings: settings, logger: logger) }
            ?? CoordinatorCore(settings: settings, highAvailability: Camsync_V1_CoordinatorAddress())

        if let security = settings.security {
            // Every coordinator's key too (its own included): a standby's SUB to the leader's pulse presents it.
            let own = try CurveKeyPair(secretKey: security.secretKey).publicKey
            let coordinators = (security.coordinators?.publicKeys ?? []).union([own])
            zap = try ZAPAuthenticator(context: context,
                                       allowedPublicKeys: security.admittedNodeKeys.union(security.adminKeys).union(coordinators))
        } else {
            zap = nil
        }
        router = try ZMQSocket(context, .router)
        let events = try ZMQSocket(context, .xpub)
        wake = try ZMQSocket(context, .pair)
        for socket in [router, events] {
            try socket.set([.linger(milliseconds: 1000), .maxMessageSize(settings.maxMessageSize)])
            if let security = settings.security {
                try socket.set([.zapDomain("camsync"), .curveServer(true), .curveSecretKey(security.secretKey)])
            }
        }
        // The command socket (replies, and each node's feed pushed to it) and the event socket (the
        // observers' `all` and `hb`, the standbys' pulse) on ZeroMQ I/O threads of their own: a
        // fan-out to many observers does not hold back an ack or a node's feed.
        try router.set([.affinity(Self.commandIOThread)])
        try events.set([.affinity(Self.publicationIOThread)])
        // A listen queue for a fleet: every node connects at once when a coordinator (re)starts, and
        // libzmq's 100 would drop most of the SYNs, whose nodes then connect seconds later (TCP's
        // retries), too late to hear a new leader's first heartbeat (`listenBacklog`).
        try router.set([.routerMandatory(false), .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000),
                        .backlog(Self.listenBacklog)])
        if settings.security == nil {
            // Lab mode: nothing binds a routing id to anyone, so a restarted node simply takes its id back.
            try router.set([.routerHandover(true)])
        } else {
            // CURVE: a route belongs to the connection that holds it; a second connection with the same
            // routing id (an impostor, or a node whose old connection is half-open) gets no route, and
            // the kernel's TCP keepalive drops half-open connections (docs/PROTOCOL.md). Not ZMTP
            // heartbeats: libzmq 4.3 cancels a connection's heartbeat timer by a linear search of its
            // I/O thread's timers, once per PING, so with thousands of nodes they cost the leader O(n)
            // each (`bench fleet`'s deployed rows: a node heartbeat 7 × dearer, 60 % of it that search).
            try router.set([.routerHandover(false)] + Self.keepalive(livenessTimeoutMilliseconds: settings.livenessTimeoutMilliseconds))
        }
        try events.set([.sendHighWaterMark(100_000), .xpubManual(true)])
        if link != nil {
            let pulse = try ZMQSocket(context, .sub)
            try pulse.set([.linger(milliseconds: 0), .reconnectInterval(milliseconds: 20), .maxMessageSize(settings.maxMessageSize),
                           .subscribe(Array(CoordinatorCore.pulseTopic.utf8))])
            if let security = settings.security {
                // The server key is the leader's, set when listening to it (`listen(toLeader:)`).
                let keys = try CurveKeyPair(secretKey: security.secretKey)
                try pulse.set([.curveServerKey(keys.publicKey), .curvePublicKey(keys.publicKey), .curveSecretKey(keys.secretKey)])
            }
            leaderPulse = pulse
        } else {
            leaderPulse = nil
        }
        // Each endpoint setting may list several, comma-separated (e.g. a network address for
        // nodes plus an ipc path for local admin tools); the last bound is reported, the first is
        // advertised in HA mode unless `--advertise-*` says otherwise.
        for endpoint in EndpointList.entries(in: settings.commandEndpoint) { try router.bind(endpoint) }
        for endpoint in EndpointList.entries(in: settings.eventEndpoint) { try events.bind(endpoint) }
        try wake.bind(wakeEndpoint)
        endpoints = .init(command: try router.lastEndpoint, event: try events.lastEndpoint)
        publisher = try EventPublisher(socket: events, gate: SubscriptionGate(security: settings.security)) {
            [logger, metrics] key, why in
            metrics.record(.readRefused)
            logger.warning("subscription refused", metadata: ["key": "\(key ?? "none")", "why": "\(why)"])
        }
        poller.register(router, for: .readable)
        poller.register(wake, for: .readable)
        if let leaderPulse { poller.register(leaderPulse, for: .readable) }
        if let address = settings.advertisedAddress(bound: endpoints) { core.advertise(address) }
        if let mailbox { poller.register(fileDescriptor: mailbox.wakeDescriptor, for: .readable) }
        poller.register(fileDescriptor: answers.wakeDescriptor, for: .readable)
        let serving = core.beginServing(at: Self.now())
        logger.info(mailbox == nil ? "coordinator serving" : "coordinator serving as a standby", metadata: [
            "term": "\(core.term)", "sequence": "\(core.sequence)", "commands": "\(endpoints.command)",
            "events": "\(endpoints.event)", "curve": "\(settings.security != nil)",
            "log": "\(mailbox == nil ? "journal, \(settings.durability.rawValue)" : "etcd")",
        ])
        try core.carryOut(serving, in: self)
    }

    func close() {
        publisher.stop()
        for socket in [router, wake] + [leaderPulse].compactMap({ $0 }) { socket.close() }
        zap?.stop()
    }

    /// The coordinator's ZeroMQ I/O threads: one for the command socket's connections, one for the
    /// event socket's (`affinity` masks).
    static let ioThreads = 2
    static let commandIOThread: UInt64 = 0b01
    /// The command socket's listen queue: the kernel caps it at `net.core.somaxconn` (4096 on
    /// Debian 12), so a host for a fleet raises that too (docs/OPERATIONS.md).
    static let listenBacklog = 65_535
    static let publicationIOThread: UInt64 = 0b10

    /// TCP keepalive on the command socket under CURVE: a connection silent for the liveness timeout
    /// (whole seconds, at least 1) is probed every second and dropped after two unanswered probes. A
    /// live node heartbeats, so only a half-open connection goes that long without traffic.
    static func keepalive(livenessTimeoutMilliseconds: Int64) -> [SocketOption] {
        [.tcpKeepalive(true), .tcpKeepaliveIdle(seconds: Int(max(1, (livenessTimeoutMilliseconds + 999) / 1000))),
         .tcpKeepaliveInterval(seconds: 1), .tcpKeepaliveCount(2)]
    }

    static func now() -> CoordinatorTime {
        CoordinatorTime(monotonicMilliseconds: Clock.monotonicMilliseconds(), wallMilliseconds: Clock.wallMilliseconds())
    }

    func run(until shouldStop: () -> Bool) throws {
        while !shouldStop() {
            let now = Self.now()
            let ready = try poller.poll(timeoutMs: Int(core.nextDeadline(at: now) - now.monotonicMilliseconds))
            if ready.contains(where: { $0.socket === wake }) { _ = try wake.receive(dontWait: true) }
            if shouldStop() { break }
            let polled = CoordinatorReadiness(pulse: ready.contains { leaderPulse != nil && $0.socket === leaderPulse })
            var turn = TurnTiming()
            for phase in CoordinatorPhase.turn {
                try core.run(phase, in: self, polled: polled)
                turn.ended(phase)
            }
            turn.report(to: logger)
            watchCommands(core.takesFrames)
        }
        try core.run(.endTurn, in: self, polled: CoordinatorReadiness(pulse: false))
        try finishTurnsInFlight()
        logger.info("coordinator stopped", metadata: core.statsMetadata.mapValues { .string($0) })
    }

    /// Stops or resumes watching the command socket: frames the core cannot take yet wait in
    /// libzmq's queue (and, once it is full, in the peers'), instead of waking the loop for nothing.
    func watchCommands(_ watch: Bool) {
        guard watch != pollsCommands else { return }
        pollsCommands = watch
        if watch { poller.register(router, for: .readable) } else { poller.unregister(router) }
    }

    /// Stopping: the answers to the turns in flight (replies waiting for them leave), for up to 5 s.
    func finishTurnsInFlight() throws {
        let deadline = Clock.monotonicMilliseconds() + 5_000
        let idle = CoordinatorReadiness(pulse: false)
        while core.hasTurnsInFlight, Clock.monotonicMilliseconds() < deadline {
            _ = try poller.poll(timeoutMs: 50)
            try core.run(.answers, in: self, polled: idle)
            try core.run(.endTurn, in: self, polled: idle)
        }
    }
}
