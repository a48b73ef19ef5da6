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
    let router: ZMQSocket
    let publisher: ZMQSocket
    let wake: ZMQSocket
    let zap: ZAPAuthenticator?
    let journal: Journal
    let poller = Poller()
    var core: CoordinatorCore
    var metrics = CoordinatorMetrics()

    /// Work of the current turn, flushed by `finishTurn()`.
    var pendingEntries: [JournalEntry] = []
    var pendingReplies: [(identity: [UInt8], envelope: Envelope)] = []
    var pendingPublications: [(topic: String, envelope: Envelope)] = []
    /// Connections refused for holding another node's route, dropped (monotonic ms) once their refusal
    /// has had time to leave: libzmq writes replies on its own I/O thread.
    var routesToDrop: [(descriptor: Int32, due: Int64)] = []
    /// The last sequence committed to the journal (and published): what replays can serve.
    var committedSequence: UInt64
    var lastSnapshotSequence: UInt64
    var lastEngineTime: Int64
    let graceStart: Int64
    var nextHeartbeat: Int64 = 0
    var nextStatsLog: Int64 = 0

    init(settings: CoordinatorSettings, context: ZMQContext, wakeEndpoint: String, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        journal = try Journal(directory: settings.dataDirectory, durability: settings.durability)
        let recovered = try CoordinatorRecovery.recover(journal: journal, settings: settings, logger: logger)
        core = recovered.core
        lastSnapshotSequence = recovered.snapshotSequence
        committedSequence = recovered.core.sequence
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

}
