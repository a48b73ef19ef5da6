import CamsyncConfig
import CamsyncNode
import CamsyncPolicy
import CamsyncHistory
import CamsyncWire

/// One node process of the simulation: the real `NodeSession`, whose actions are carried out by the
/// one `NodeWorld.carryOut` against the simulated network (`SimNodeWorld`).
struct SimNode {
    let index: Int
    let config: NodeConfig
    var generation = 0
    var running = false
    var pausedUntil: Int64 = 0
    var session: NodeSession?
    var clockOffset: Int64 = 0
    /// The coordinator the node follows (where it sends), and the number of its connection to each
    /// coordinator (what was sent on a connection it reopened is lost with it).
    var target = 0
    var epochs: [Int]
    var wakeToken = 0
    var startedAt: Int64 = 0
    /// Until when the node's connections are down (µs): what coordinators push or answer meanwhile
    /// never reaches it, while what it sends does.
    var connectionDownUntil: Int64 = 0
    /// The request id under which the node last forwarded each command a control client gave it
    /// (keyed by the wire command's bytes): what the log holds for a control-path ack.
    var forwarded: [[UInt8]: UInt64] = [:]
    /// Registrations, snapshot and replay requests in the current second of simulated time.
    var catchUps: (second: Int64, count: Int) = (0, 0)
    /// Since when (µs) this node's replica has waited for a snapshot; nil while synced.
    var unsyncedSince: Int64?
    /// Until when a coordinator this node left was disturbed (µs): the time it waited on a stalled or
    /// cut-off coordinator before moving on is time it was kept from its snapshot.
    var leftDisturbedUntil: Int64 = 0

    init(index: Int, config: NodeConfig, coordinators: Int) {
        self.index = index
        self.config = config
        epochs = Array(repeating: 0, count: coordinators)
    }

    func isRunning(_ generation: Int) -> Bool { running && self.generation == generation }

    func startedRecently(now: Int64, window: Int64) -> Bool { now - startedAt < window }

    /// When the session wants to be woken (monotonic ms; nil: no session).
    var wakeDeadline: Int64? { session?.nextDeadline }
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
        for c in nodes[n].epochs.indices { nodes[n].epochs[c] += 1 }
        trace.record(now, "\(nodes[n].config.id) starts (incarnation \(nodes[n].generation))", 10, Int64(n))
        let actions = session.start(now: nodeTime(n))
        nodes[n].session = session
        perform(n, actions)
    }

    func crashNode(_ n: Int) {
        guard nodes[n].running else { return }
        nodes[n].running = false
        nodes[n].session = nil
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

    /// A control client (`camsync ctl act` on the node's host) hands the node a request.
    func nodeControl(_ n: Int, from k: Int, _ bytes: [UInt8]) {
        guard nodes[n].running, nodes[n].session != nil, !deferIfPaused(node: n, .call { [unowned self] in
            nodeControl(n, from: k, bytes) }) else { return }
        trace.record(now, "\(nodes[n].config.id) gets a control request from \(clients[k].id)", 16, Int64(n), bytes: bytes)
        let actions = nodes[n].session!.receiveControl(identity: Array(clients[k].id.utf8), frame: bytes, now: nodeTime(n))
        perform(n, actions)
    }

    func nodeTick(_ n: Int) {
        let time = nodeTime(n)
        let actions = nodes[n].session!.tick(now: time)
        checkSynced(n)
        perform(n, actions)
    }

    private func perform(_ n: Int, _ actions: [NodeAction]) {
        guard nodes[n].session != nil else { return }
        do {
            try SimNodeWorld(simulation: self, n: n).carryOut(actions)
        } catch {
            violation("\(nodes[n].config.id)'s actions threw \(error)")
        }
        guard let deadline = nodes[n].wakeDeadline else { return }
        nodes[n].wakeToken += 1
        let at = (deadline - nodes[n].clockOffset) * 1000
        scheduler.schedule(.nodeWake(n, generation: nodes[n].generation, token: nodes[n].wakeToken), at: max(at, now + 1))
    }

    /// Nothing more than the history keeps: a hook for the trace.
    func nodeSawFence(_ n: Int, _ record: FenceRecord) {
        trace.record(now, "\(nodes[n].config.id) fence \(record.decision.kind) \(record.decision.app) token \(record.decision.token.value)",
                     15, Int64(n), Int64(record.decision.token.value))
    }

    func deferIfPaused(node n: Int, _ event: Event) -> Bool {
        guard nodes[n].pausedUntil > now else { return false }
        scheduler.schedule(event, at: nodes[n].pausedUntil)
        return true
    }
}

/// A simulated node's world: its messages cross the simulated network to the coordinator it
/// follows, on its connection to it; what it records goes to the history the checker reads (`NodeWorld`).
struct SimNodeWorld: NodeWorld {
    unowned let simulation: Simulation
    let n: Int

    func send(_ envelope: Envelope) {
        let sim = simulation
        let bytes = envelope.serializedBytes()
        if case .command(let command)? = envelope.body, let wire: [UInt8] = try? command.serializedBytes() {
            sim.nodes[n].forwarded[wire] = envelope.requestID
        }
        let c = sim.nodes[n].target
        let routingID = Array(sim.nodes[n].config.id.rawValue.utf8)
        for at in sim.network.deliveries(from: .node(n), to: .coordinator(c), at: sim.now, rng: &sim.rng) {
            sim.scheduler.schedule(.coordinatorFrame(c, generation: sim.coordinators[c].generation, routingID: routingID,
                                                     bytes: bytes), at: at)
        }
    }

    func follow(commandEndpoint: String, serverKey: String?, reopen: Bool) {
        let sim = simulation
        let left = sim.nodes[n].target
        let target = SimTopology.coordinator(endpoint: commandEndpoint) ?? left
        sim.nodes[n].leftDisturbedUntil = max(sim.nodes[n].leftDisturbedUntil, sim.disturbedUntil[.coordinator(left)] ?? 0,
                                              sim.stalledUntil[left] ?? 0)
        sim.nodes[n].target = target
        if reopen { sim.nodes[n].epochs[target] += 1 }
        sim.trace.record(sim.now, "\(sim.nodes[n].config.id) \(reopen ? "reconnects to" : "follows") \(commandEndpoint)", 14, Int64(n),
                         Int64(target))
    }

    /// The answer goes back to the control client on the node's host (a local socket: no faults).
    func replyToControl(identity: [UInt8], _ envelope: Envelope) {
        let sim = simulation
        guard let k = sim.clients.firstIndex(where: { Array($0.id.utf8) == identity }) else { return }
        sim.scheduler.schedule(.clientReply(k, bytes: envelope.serializedBytes()), at: sim.now + SimTopology.controlDelay)
    }

    func appendHistory(_ entry: NodeHistoryEntry) {
        simulation.nodeEntries.append(entry)
        if case .fence(let record) = entry { simulation.nodeSawFence(n, record) }
    }

    func count(_ metric: NodeMetric) {
        switch metric {
        case .registrationSent, .snapshotRequested, .replayRequested: simulation.catchUpRequested(n, metric)
        case .movedUnheard(let held): simulation.checkUnheardMove(n, held: held)
        default: break
        }
    }

}
