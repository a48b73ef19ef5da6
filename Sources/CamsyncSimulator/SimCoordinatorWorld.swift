import CamsyncCoordinator
import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The simulated world of `CoordinatorWorld` for one coordinator incarnation: the frames, news,
/// pulses and answers the simulation queued for it; its network, store and journal; and time that
/// work takes (`SimWorkCosts`): each thing done moves the process's clock ahead of the simulated now,
/// and what it sends leaves at that clock. The turn itself is the real one (`CoordinatorPhase.turn`).
final class SimCoordinatorWorld: CoordinatorWorld {
    unowned let simulation: Simulation
    let c: Int
    let generation: Int
    /// Batches published in the phase under way, judged once the core is back in place (`checkPublished`).
    private var published: [Camsync_V1_EventBatch] = []
    /// Batches pushed in the phase under way, and to which node (`checkAddressed`).
    private var pushed: [(node: Int, batch: Camsync_V1_EventBatch)] = []

    init(simulation: Simulation, coordinator c: Int, generation: Int) {
        self.simulation = simulation
        self.c = c
        self.generation = generation
    }

    /// The costs this process pays now (slowed while a slow-process fault lasts).
    private var costs: SimWorkCosts {
        simulation.coordinators[c].slowUntil > simulation.now
            ? simulation.workCosts.slowed(by: simulation.coordinators[c].slowdown) : simulation.workCosts
    }

    private var name: String { simulation.coordinators[c].name }

    private func charge(_ microseconds: Int64) { simulation.coordinators[c].ahead += microseconds }

    /// The process's clock (µs): the simulated now plus the work done since the phase began.
    private var clock: Int64 { simulation.now + simulation.coordinators[c].ahead }

    func now() -> CoordinatorTime { simulation.coordinatorTime(c) }

    // MARK: What a turn takes

    func takeNews() -> [LeadershipEvent] {
        let news = simulation.coordinators[c].mailbox
        simulation.coordinators[c].mailbox.removeAll()
        for case .logTurn(let batches) in news { charge(Int64(batches.count) * costs.followedBatch) }
        for item in news { simulation.trace.record(simulation.now, "\(name) learns \(item)", 3, Int64(c)) }
        return news
    }

    func nextAnswer() -> StoreAnswer? { simulation.coordinators[c].answers.popLast() }

    func nextFrame() throws -> InboundFrame? {
        guard let frame = simulation.coordinators[c].takeFrame() else { return nil }
        charge(costs.frame)
        simulation.trace.record(simulation.now, "\(name) takes a frame", 4, Int64(c), bytes: frame.bytes)
        return InboundFrame(frames: [frame.routingID, frame.bytes])
    }

    func nextPulse() throws -> [[UInt8]]? {
        guard !simulation.coordinators[c].pulses.isEmpty else { return nil }
        let bytes = simulation.coordinators[c].pulses.removeFirst()
        return [Array(CoordinatorCore.pulseTopic.utf8), bytes]
    }

    var isHalted: Bool { !simulation.coordinators[c].isRunning(generation) }

    /// The fault placed right after an answered commit (`WatchFaults`): the process dies here.
    func answerCarriedOut(_ answer: StoreAnswer) {
        if case .committed(let id) = answer, simulation.diesAfterAnswering(c, commit: id) { simulation.crashAfterCommit(c) }
    }

    // MARK: What the core's actions do

    func send(_ envelope: Envelope, to routingID: [UInt8]) {
        let bytes = envelope.serializedBytes()
        if case .snapshot? = envelope.body { charge(costs.snapshot(bytes: bytes.count)) }
        deliver(bytes, to: routingID)
    }

    /// The encoding was the core's, once for all its requests, charged when it counted it (`count`).
    func send(_ shared: Publication, answering requestID: UInt64, to routingID: [UInt8]) {
        deliver(shared.bytes(answering: requestID), to: routingID)
    }

    private func deliver(_ bytes: [UInt8], to routingID: [UInt8]) {
        charge(costs.reply)
        let target = String(decoding: routingID, as: UTF8.self)
        let sim = simulation
        if let n = sim.nodeIndex[target] {
            guard sim.nodes[n].connectionDownUntil <= clock else { return }
            let epoch = sim.nodes[n].epochs[c]
            for at in sim.network.deliveries(from: .coordinator(c), to: .node(n), at: clock, rng: &sim.rng) {
                sim.scheduler.schedule(.nodeReply(n, generation: sim.nodes[n].generation, from: c, epoch: epoch, bytes: bytes),
                                       at: sim.feedDelivery(to: n, at: at))
            }
        } else if let k = sim.clients.firstIndex(where: { $0.id == target }) {
            for at in sim.network.deliveries(from: .coordinator(c), to: .client(k), at: clock, rng: &sim.rng) {
                sim.scheduler.schedule(.clientReply(k, bytes: bytes), at: at)
            }
        } else if let o = sim.observers.firstIndex(where: { $0.id == target }) {
            for at in sim.network.deliveries(from: .coordinator(c), to: .observer(o), at: clock, rng: &sim.rng) {
                sim.scheduler.schedule(.observerReply(o, bytes: bytes), at: at)
            }
        }
    }

    /// Through the publisher's thread, one copy per subscriber that hears the topic, each after the
    /// copies handed over before it: a pulse queued behind a heartbeat's fan-out leaves after it.
    /// Only the standbys listening to the pulse subscribe (the nodes' feed is pushed, `push`).
    func publish(topic: String, _ publication: Publication) {
        let sim = simulation
        let bytes = publication.bytes
        let copy = costs.copy
        var leaves = max(clock, sim.coordinators[c].publisherFreeAt)
        if topic == CoordinatorCore.pulseTopic {
            for d in sim.coordinators.indices where d != c && sim.coordinators[d].running && sim.coordinators[d].listeningTo == c {
                leaves += copy
                for at in sim.network.deliveries(from: .coordinator(c), to: .coordinator(d), at: leaves, rng: &sim.rng) {
                    sim.scheduler.schedule(.coordinatorPulse(d, generation: sim.coordinators[d].generation, from: c, bytes: bytes), at: at)
                }
            }
        }
        sim.coordinators[c].publisherFreeAt = leaves
        // A new leader's first publications may repeat the old leader's tail (K7): judged when made,
        // once per batch (on `all`; its copies on the nodes' feeds are the same bytes).
        if topic == EventTopic.everyBatch, case .eventBatch(let batch)? = publication.envelope.body {
            published.append(batch)
            if sim.groupPrevious[batch.sequence] == nil {
                sim.groupPrevious[batch.sequence] = Dictionary(batch.groups.map { ($0.group, $0.sequence) }) { first, _ in first }
            }
        }
    }

    /// A push on the node's connection to this coordinator, sent by the loop's thread: one copy.
    func push(_ publication: Publication, topic: String, to routingID: [UInt8]) {
        let sim = simulation
        guard let n = sim.nodeIndex[String(decoding: routingID, as: UTF8.self)] else { return }
        charge(costs.copy)
        if case .eventBatch(let batch)? = publication.envelope.body { pushed.append((n, batch)) }
        guard sim.nodes[n].running, sim.nodes[n].connectionDownUntil <= clock else { return }
        let epoch = sim.nodes[n].epochs[c], bytes = publication.bytes, topicBytes = Array(topic.utf8)
        for at in sim.network.deliveries(from: .coordinator(c), to: .node(n), at: clock, rng: &sim.rng) {
            sim.scheduler.schedule(.nodePublication(n, generation: sim.nodes[n].generation, from: c, epoch: epoch, topic: topicBytes,
                                                    bytes: bytes), at: sim.feedDelivery(to: n, at: at))
        }
    }

    /// The batches published in the phase just run, judged against the core now back in place.
    func checkPublished() {
        let pushes = pushed
        pushed.removeAll()
        for (n, batch) in pushes { simulation.checkAddressed(batch, to: n, by: c) }
        guard !published.isEmpty else { return }
        let batches = published
        published.removeAll()
        for batch in batches where batch.term == simulation.coordinators[c].core?.term {
            simulation.checkInvariants(c, after: batch)
            if batch.originNode.isEmpty, case .declareNodeDead(let node)? = try? Command(wire: batch.command) {
                simulation.checkDeclaration(by: c, of: node)
            }
        }
    }

    func commit(_ commit: TurnCommit) -> StoreAnswer? {
        charge(Int64(commit.count) * costs.loggedBatch)
        let sim = simulation, c = self.c, generation = self.generation
        switch sim.options.mode {
        case .embedded:
            // One writer thread: each commit syncs after the one before it.
            let done = max(clock, sim.coordinators[c].journalFreeAt) + Int64.random(in: 300...2_000, using: &sim.rng)
            sim.coordinators[c].journalFreeAt = done
            sim.scheduler.schedule(.call { [unowned sim] in
                guard sim.coordinators[c].isRunning(generation) else { return }   // died before the fsync: lost
                sim.journal.append(commit.entries)
                sim.scheduler.schedule(.coordinatorIO(c, generation: generation, .committed(commit.id)), at: sim.now)
            }, at: done)
        case .highAvailability:
            sim.storeCall(c, generation: generation, sent: clock) { [unowned sim] in
                do throws(StoreFailure) {
                    let turn = try sim.store.append(commit.entries, ifLeading: commit.leadership, follows: commit.follows)
                    sim.watchersSee(turn, committedBy: c, commit: commit.id)
                    return .committed(commit.id)
                } catch {
                    return .commitFailed(commit.id, error)
                }
            } failed: { .commitFailed(commit.id, $0) }
        }
        return nil
    }

    func write(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?) {
        let sim = simulation, c = self.c, generation = self.generation
        switch sim.options.mode {
        case .embedded:
            let done = max(clock, sim.coordinators[c].journalFreeAt) + 1_000
            sim.coordinators[c].journalFreeAt = done
            sim.scheduler.schedule(.call { [unowned sim] in
                guard sim.coordinators[c].isRunning(generation) else { return }
                sim.journal.writeSnapshot(snapshot, keepingCommands: keep)
            }, at: done)
        case .highAvailability:
            sim.storeCall(c, generation: generation, sent: clock) { [unowned sim] in
                do throws(StoreFailure) {
                    try sim.store.writeSnapshot(snapshot, keepingCommands: keep, ifLeading: leadership)
                    return .snapshotWritten
                } catch {
                    return .snapshotFailed(error)
                }
            } failed: { .snapshotFailed($0) }
        }
    }

    func read(_ read: LogRead) {
        let sim = simulation, c = self.c, generation = self.generation
        switch (read, sim.options.mode) {
        case (.replay(let routingID, let requestID, let after, let limit), .embedded):
            let batches = sim.journal.batches(after: after, limit: limit)
            let done = max(clock, sim.coordinators[c].journalFreeAt) + 200
            sim.coordinators[c].journalFreeAt = done
            sim.scheduler.schedule(.coordinatorIO(c, generation: generation,
                                                  .replay(routingID: routingID, requestID: requestID, after: after,
                                                          .success(batches))), at: done)
        case (.replay(let routingID, let requestID, let after, let limit), .highAvailability):
            sim.storeCall(c, generation: generation, sent: clock) { [unowned sim] in
                let batches = sim.store.loggedBatches(after: after).prefix(limit).map(\.encoded)
                return .replay(routingID: routingID, requestID: requestID, after: after, .success(Array(batches)))
            } failed: { .replay(routingID: routingID, requestID: requestID, after: after, .failure($0 as any Error)) }
        case (.rebuild, _):
            sim.storeCall(c, generation: generation, sent: clock) { [unowned sim] in
                .rebuilt(sim.store.snapshot, sim.store.loggedBatches(after: 0))
            } failed: { .readFailed($0) }
        case (.log(let after), _):
            sim.storeCall(c, generation: generation, sent: clock) { [unowned sim] in
                .logRead(sim.store.loggedBatches(after: after))
            } failed: { .readFailed($0) }
        }
    }

    func resign(_ leadership: EtcdLeadership) {
        simulation.trace.record(simulation.now, "\(name) resigns term \(leadership.term)", 5, Int64(c), leadership.term)
        simulation.resign(c, leadership)
    }

    func listen(toLeader leader: Camsync_V1_CoordinatorAddress?) {
        simulation.coordinators[c].listeningTo = leader.flatMap { address in
            simulation.coordinators.firstIndex { $0.name == address.name }
        }
    }

    func revoke(lease: Int64) {
        simulation.checkSuspicion(by: c)
        simulation.trace.record(simulation.now, "\(name) suspects the leader and revokes its lease", 8, Int64(c), lease)
        simulation.revokeLease(c, lease)
    }

    func drop(_ connection: ConnectionHandle) {}

    func suspend(key: String, milliseconds: Int64) {}

    func count(_ metric: CoordinatorMetric) {
        switch metric {
        case .accepted: charge(costs.command)
        case .snapshotEncoded(let bytes): charge(costs.snapshot(bytes: bytes))
        case .role(let leading, let term): simulation.roleChanged(c, leading: leading, term: term)
        default: break
        }
    }

    func log(_ entry: CoordinatorLogEntry) {}

    func stop(_ reason: String) throws {
        simulation.trace.note(simulation.now, "\(name) stops: \(reason)")
        simulation.crashCoordinator(c)
    }
}
