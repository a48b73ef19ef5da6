import CamsyncConfig
import CamsyncNode
import CamsyncPolicy
import CamsyncHistory
import CamsyncWire

/// One node process of the simulation: the real `NodeSession`, and a shell that does what `NodeLoop`
/// does with its actions (the DEALER to the coordinator the session follows, the SUB to every
/// coordinator, the history file).
struct SimNode {
    let index: Int
    let config: NodeConfig
    var generation = 0
    var running = false
    var pausedUntil: Int64 = 0
    var session: NodeSession?
    var clockOffset: Int64 = 0
    /// The coordinator the DEALER is connected to, and the connection's number (replies to an
    /// older connection are lost with it).
    var target = 0
    var epoch = 0
    var wakeToken = 0
    var startedAt: Int64 = 0
    /// The topics the SUB is subscribed to, as `NodeLoop` keeps them: what the session followed
    /// after its last step (none while the process is down).
    var subscribed: [String] = []
    /// Until when the SUB's connection is down (µs): what is published meanwhile never reaches it (a
    /// SUB that reconnects has missed it), while the DEALER works on.
    var subscriptionDownUntil: Int64 = 0
    /// Registrations, snapshot and replay requests in the current second of simulated time.
    var catchUps: (second: Int64, count: Int) = (0, 0)
    /// Since when (µs) this node's replica has waited for a snapshot; nil while synced.
    var unsyncedSince: Int64?

    init(index: Int, config: NodeConfig) {
        self.index = index
        self.config = config
    }

    func isRunning(_ generation: Int) -> Bool { running && self.generation == generation }

    func startedRecently(now: Int64, window: Int64) -> Bool { now - startedAt < window }

    /// Whether the SUB hears `topic` (ZeroMQ filters by prefix).
    func hears(_ topic: String) -> Bool {
        running && subscribed.contains { topic.utf8.starts(with: $0.utf8) }
    }

    /// After a step of the session, what the shell does with its state (`NodeLoop`): follows its
    /// subscriptions, and returns when it wants to be woken (monotonic ms; nil: no session).
    /// Mutating so that the session is read in place, not copied out of the simulation's array.
    mutating func followSession() -> Int64? {
        guard let session else {
            subscribed = []
            return nil
        }
        let wanted = session.subscriptions
        if wanted != subscribed { subscribed = wanted }
        return session.nextDeadline
    }
}

extension Simulation {

    func nodeTime(_ n: Int) -> NodeTime {
        NodeTime(monotonic: nowMilliseconds + nodes[n].clockOffset, wall: wall)
    }

    func startNode(_ n: Int) {
        nodes[n].generation += 1
        nodes[n].running = true
        nodes[n].pausedUntil = 0
        nodes[n].startedAt = now
        nodes[n].clockOffset = Int64.random(in: 0...100_000, using: &rng)
        let endpoints = coordinators.indices.map(SimTopology.commandEndpoint)
        var settings = NodeSettings(
            config: nodes[n].config, coordinatorCommandEndpoint: endpoints.joined(separator: ","),
            coordinatorEventEndpoint: coordinators.indices.map(SimTopology.eventEndpoint).joined(separator: ","),
            controlEndpoint: "sim://\(nodes[n].config.id)/control",
            heartbeatIntervalMilliseconds: options.heartbeatMilliseconds, liveness: options.liveness,
            requestRetryMilliseconds: 1_000, requestAttempts: 1_000)
        settings.plantedBug = options.plantedBug
        var session = NodeSession(settings: settings, now: nodeTime(n))
        nodes[n].target = SimTopology.coordinator(endpoint: session.followed.commandEndpoint) ?? 0
        nodes[n].epoch += 1
        trace.record(now, "\(nodes[n].config.id) starts (incarnation \(nodes[n].generation))", 10, Int64(n))
        let actions = session.start(now: nodeTime(n))
        nodes[n].session = session
        perform(n, actions)
    }

    func crashNode(_ n: Int) {
        guard nodes[n].running else { return }
        nodes[n].running = false
        nodes[n].session = nil
        nodes[n].subscribed = []
        stops.append(NodeStopped(node: nodes[n].config.id, at: wall))
        trace.record(now, "\(nodes[n].config.id) crashes", 11, Int64(n))
    }

    func nodeReceivesReply(_ n: Int, _ bytes: [UInt8]) {
        trace.record(now, "\(nodes[n].config.id) gets a reply", 12, Int64(n), bytes: bytes)
        let time = nodeTime(n)
        let before = groupPosition(n)
        let actions = nodes[n].session!.receiveReply([bytes], now: time)
        checkGroupChain(n, from: before)
        perform(n, actions)
    }

    func nodeReceivesPublication(_ n: Int, topic: [UInt8], _ bytes: [UInt8]) {
        trace.record(now, "\(nodes[n].config.id) gets a publication", 13, Int64(n), bytes: bytes)
        let time = nodeTime(n)
        let before = groupPosition(n)
        let actions = nodes[n].session!.receivePublication([topic, bytes], now: time)
        checkGroupChain(n, from: before)
        perform(n, actions)
    }

    func nodeTick(_ n: Int) {
        let time = nodeTime(n)
        let actions = nodes[n].session!.tick(now: time)
        checkSynced(n)
        perform(n, actions)
    }

    private func perform(_ n: Int, _ actions: [NodeAction]) {
        for action in actions {
            switch action {
            case .send(let envelope):
                let bytes = envelope.serializedBytes()
                let c = nodes[n].target
                let routingID = Array(nodes[n].config.id.rawValue.utf8)
                for at in network.deliveries(from: .node(n), to: .coordinator(c), at: now, rng: &rng) {
                    scheduler.schedule(.coordinatorFrame(c, generation: coordinators[c].generation, routingID: routingID,
                                                         bytes: bytes), at: at)
                }
            case .reconnect(let endpoint, _, _):
                nodes[n].target = SimTopology.coordinator(endpoint: endpoint) ?? nodes[n].target
                nodes[n].epoch += 1
                trace.record(now, "\(nodes[n].config.id) connects to \(endpoint)", 14, Int64(n), Int64(nodes[n].target))
            case .appendHistory(let entry):
                nodeEntries.append(entry)
                if case .fence(let record) = entry { nodeSawFence(n, record) }
            case .count(let metric):
                if metric == .registrationSent || metric == .snapshotRequested || metric == .replayRequested {
                    catchUpRequested(n, metric)
                }
            case .replyToControl, .log:
                break
            }
        }
        guard let deadline = nodes[n].followSession() else { return }
        nodes[n].wakeToken += 1
        let at = (deadline - nodes[n].clockOffset) * 1000
        scheduler.schedule(.nodeWake(n, generation: nodes[n].generation, token: nodes[n].wakeToken), at: max(at, now + 1))
    }

    /// Nothing more than the history keeps: a hook for the trace.
    private func nodeSawFence(_ n: Int, _ record: FenceRecord) {
        trace.record(now, "\(nodes[n].config.id) fence \(record.decision.kind) \(record.decision.app) token \(record.decision.token.value)",
                     15, Int64(n), Int64(record.decision.token.value))
    }

    func deferIfPaused(node n: Int, _ event: Event) -> Bool {
        guard nodes[n].pausedUntil > now else { return false }
        scheduler.schedule(event, at: nodes[n].pausedUntil)
        return true
    }
}
