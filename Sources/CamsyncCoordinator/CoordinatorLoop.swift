import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ
import Foundation

/// The coordinator's shell, confined to its thread: ROUTER in, PUB out, the journal, the clocks. The protocol
/// logic is `CoordinatorCore`; this loop feeds it frames and time and carries out the actions it returns.
/// One turn: wait for traffic or the nearest deadline → hand a batch of frames to the core → timers →
/// commit the turn's log appends in one transaction → send replies → publish events.
final class CoordinatorLoop {
    let settings: CoordinatorSettings
    let logger: Logger
    let endpoints: CoordinatorServer.Endpoints
    let router: ZMQSocket
    let publisher: ZMQSocket
    let wake: ZMQSocket
    let zap: ZAPAuthenticator?
    /// The SQLite journal, or etcd in HA (`ha.log`).
    let commandLog: any CommandLog
    /// HA mode's loop-side state (SPEC K6); nil for an embedded coordinator.
    let ha: HALoopState?
    let poller = Poller()
    var core: CoordinatorCore
    let metrics = CoordinatorMetrics()

    /// Work of the current turn, flushed by `finishTurn()`.
    var pendingEntries: [JournalEntry] = []
    var pendingReplies: [(identity: [UInt8], envelope: Envelope)] = []
    var pendingPublications: [(topic: String, envelope: Envelope)] = []
    /// Connections refused for holding another node's route, dropped (monotonic ms) once their refusal
    /// has had time to leave: libzmq writes replies on its own I/O thread.
    var routesToDrop: [(descriptor: Int32, due: Int64)] = []
    var nextStatsLog: Int64 = 0

    /// `etcd`: HA mode's link to etcd (its log and the supervisor's mailbox); nil = the SQLite journal.
    init(settings: CoordinatorSettings, context: ZMQContext, wakeEndpoint: String, etcd: HALink?, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        if let etcd {
            // A standby until etcd says otherwise; the state comes from etcd once the loop runs.
            let log = EtcdLogExecutor(log: etcd.log)
            commandLog = log
            ha = HALoopState(log: log, mailbox: etcd.mailbox)
            core = CoordinatorCore(settings: settings, term: 0)
            core.becomeStandby(reason: "starting: reading the log from etcd")
        } else {
            let journal = try Journal(directory: settings.dataDirectory, durability: settings.durability)
            commandLog = journal
            ha = nil
            core = try CoordinatorRecovery.recover(journal: journal, settings: settings, logger: logger)
        }

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
        try router.set([.routerMandatory(false), .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000)])
        if settings.security == nil {
            // Lab mode: nothing binds a routing id to anyone, so a restarted node simply takes its id back.
            try router.set([.routerHandover(true)])
        } else {
            // CURVE: a route belongs to the connection that holds it; a second connection with the same
            // routing id (an impostor, or a node whose old connection is half-open) gets no route, and
            // ZMTP heartbeats drop half-open connections within the liveness timeout (docs/PROTOCOL.md).
            try router.set([.routerHandover(false),
                            .heartbeatInterval(milliseconds: Int(settings.heartbeatIntervalMilliseconds)),
                            .heartbeatTimeout(milliseconds: Int(settings.livenessTimeoutMilliseconds))])
        }
        try publisher.set([.sendHighWaterMark(100_000)])
        // Each endpoint setting may list several, comma-separated (e.g. a network address for
        // nodes plus an ipc path for local admin tools); the last bound is reported, the first is
        // advertised in HA mode unless `--advertise-*` says otherwise.
        for endpoint in Self.split(settings.commandEndpoint) { try router.bind(endpoint) }
        for endpoint in Self.split(settings.eventEndpoint) { try publisher.bind(endpoint) }
        try wake.bind(wakeEndpoint)
        endpoints = .init(command: try router.lastEndpoint, event: try publisher.lastEndpoint)
        poller.register(router, for: .readable)
        poller.register(wake, for: .readable)
        if let ha {
            poller.register(fileDescriptor: ha.mailbox.wakeDescriptor, for: .readable)
            core.becomeStandby(reason: "starting: reading the log from etcd",
                              address: settings.advertisedAddress(bound: endpoints))
        }
        core.beginServing(at: Self.now())
        logger.info(ha == nil ? "coordinator serving" : "coordinator serving as a standby", metadata: [
            "term": "\(core.term)", "sequence": "\(core.sequence)", "commands": "\(endpoints.command)",
            "events": "\(endpoints.event)", "curve": "\(settings.security != nil)",
            "log": "\(ha == nil ? "journal, \(settings.durability.rawValue)" : "etcd")",
        ])
    }

    static func split(_ endpoints: String) -> [String] {
        endpoints.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func close() {
        for socket in [router, publisher, wake] { socket.close() }
        zap?.stop()
    }

    static func now() -> CoordinatorTime {
        CoordinatorTime(monotonicMilliseconds: Clock.monotonicMilliseconds(), wallMilliseconds: Clock.wallMilliseconds())
    }

    func run(until shouldStop: () -> Bool) throws {
        while !shouldStop() {
            if let ha { try followEtcd(ha) }
            let now = Self.now()
            var deadline = core.nextDeadline(at: now)
            if let drop = routesToDrop.map(\.due).min() { deadline = min(deadline, drop) }
            if let retry = ha?.nextAttempt { deadline = min(deadline, retry) }
            let timeout = max(0, min(deadline - now.monotonicMilliseconds, settings.heartbeatIntervalMilliseconds))
            let ready = try poller.poll(timeoutMs: Int(timeout))
            if ready.contains(where: { $0.socket === wake }) { _ = try wake.receive(dontWait: true) }
            if shouldStop() { break }
            if ready.contains(where: { $0.socket === router }) {
                try drainRequests()
            }
            logStatsWhenDue()
            try execute(core.tick(at: Self.now()))
            try finishTurn()
        }
        try finishTurn()
        logger.info("coordinator stopped", metadata: statsMetadata())
    }

    /// Takes up to `batchLimit` requests, or what arrives within 20 ms, whichever ends first, so one
    /// turn (and the replies waiting for its group commit) stays short whatever the frames are.
    func drainRequests() throws {
        var handled = 0
        let started = Clock.monotonicMilliseconds()
        while handled < settings.batchLimit, let message = try router.receive(dontWait: true) {
            handled += 1
            let inbound = InboundFrame(frames: message.frames, userID: message.userID,
                                       connection: message.connectionDescriptor.map(ConnectionHandle.init))
            try execute(core.receive(inbound, at: Self.now()))
            if handled % 64 == 0, Clock.monotonicMilliseconds() - started > 20 { break }
        }
    }

}
