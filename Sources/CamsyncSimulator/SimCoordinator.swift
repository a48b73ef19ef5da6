import CamsyncCoordinator
import CamsyncEtcd
import CamsyncHistory
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire

/// One coordinator process of the simulation: the real `CoordinatorCore`, and a shell that does what
/// `CoordinatorLoop` does (etcd's news, the log's answers, then the frames at hand, then `tick`, then
/// `endTurn`), blocking on each read as the loop thread does; writes are not awaited (a pipelined
/// log): their answers come back later, in any order from the store, in order from the journal.
struct SimCoordinator {
    let index: Int
    let name: String
    var generation = 0
    var running = false
    var pausedUntil: Int64 = 0
    var core: CoordinatorCore?
    /// This incarnation's monotonic clock: simulated ms + offset.
    var clockOffset: Int64 = 0
    var inbox: [(routingID: [UInt8], bytes: [UInt8])] = []
    var mailbox: [LeadershipEvent] = []
    /// Pulses heard on the SUB to the leader, and which coordinator it listens to.
    var pulses: [[UInt8]] = []
    var listeningTo: Int?
    /// What the loop carries out before its next iteration, the next last (`doFirst`).
    var work: [Work] = []
    /// The log's answers to writes in flight, taken at the next iteration.
    var answers: [StoreAnswer] = []
    /// When the journal's writer thread is free again (embedded: writes are done in order).
    var journalFreeAt: Int64 = 0
    var blocked = false
    var wakeToken = 0
    var wakeAt: Int64?
    var supervisor = SimSupervisor()
    /// Iterations at one instant (a loop that never sleeps is a bug).
    var spinsAt: (time: Int64, count: Int) = (0, 0)

    enum Work {
        case observe(LeadershipEvent)
        case pulse([UInt8])
        case answer(StoreAnswer)
        case receive(routingID: [UInt8], bytes: [UInt8])
        case tick
        case endTurn
        case action(CoordinatorAction)
        /// The process dies here (a fault placed right after an answered commit).
        case crash
    }

    init(index: Int, name: String) {
        self.index = index
        self.name = name
    }

    func isRunning(_ generation: Int) -> Bool { running && self.generation == generation }

    /// `items`, in order, before the rest of the pending work.
    mutating func doFirst(_ items: [Work]) {
        work.append(contentsOf: items.reversed())
    }

    /// The part of the core's state that `groups` hold (the whole state for nil), read in place (as
    /// `loopState`); nil without a core.
    mutating func statePart(groups: [NodeID]?) -> ClusterState? {
        guard let groups else { return core?.state }
        return core?.engine.state(ofGroups: groups)
    }

    /// The core's next deadline (monotonic ms) and whether it takes frames now; nil without a core.
    /// Mutating so that the core is read in place: reading it out of the simulation's array would
    /// copy it whole.
    mutating func loopState(at time: CoordinatorTime) -> (deadline: Int64, takesFrames: Bool)? {
        guard let deadline = core?.nextDeadline(at: time), let takesFrames = core?.takesFrames else { return nil }
        return (deadline, takesFrames)
    }

    var address: Camsync_V1_CoordinatorAddress {
        .with {
            $0.name = name
            $0.commandEndpoint = SimTopology.commandEndpoint(index)
            $0.eventEndpoint = SimTopology.eventEndpoint(index)
        }
    }
}

extension Simulation {

    func coordinatorTime(_ c: Int) -> CoordinatorTime {
        CoordinatorTime(monotonicMilliseconds: nowMilliseconds + coordinators[c].clockOffset,
                        wallMilliseconds: wall.milliseconds)
    }

    /// A new incarnation: HA cores read their state from the store; the embedded one recovers from its journal.
    func startCoordinator(_ c: Int) {
        var process = coordinators[c]
        process.generation += 1
        process.running = true
        process.pausedUntil = 0
        process.clockOffset = Int64.random(in: 0...100_000, using: &rng)
        process.inbox = []
        process.mailbox = []
        process.pulses = []
        process.listeningTo = nil
        process.work = []
        process.answers = []
        process.journalFreeAt = 0
        process.blocked = false
        process.wakeAt = nil
        process.supervisor = SimSupervisor()
        coordinators[c] = process
        watchFaults.lastDelivery[c] = nil
        if watchFaults.crashing?.coordinator == c { watchFaults.crashing = nil }
        let time = coordinatorTime(c)
        var core: CoordinatorCore
        switch options.mode {
        case .highAvailability:
            var haSettings = settings
            haSettings.highAvailability = HighAvailabilitySettings(etcd: [], name: process.name, leaseSeconds: options.leaseSeconds)
            core = CoordinatorCore(settings: haSettings, highAvailability: process.address)
        case .embedded:
            journal.terms += 1
            do {
                core = try CoordinatorRecovery.rebuild(settings: settings, term: journal.terms, snapshot: journal.snapshot,
                                                       entries: journal.entries).core
            } catch {
                violation("the journal does not recover: \(error)")
                core = CoordinatorCore(settings: settings, term: journal.terms)
            }
        }
        core.beginServing(at: time)
        coordinators[c].core = core
        trace.record(now, "\(process.name) starts (incarnation \(coordinators[c].generation))", 1, Int64(c))
        if options.mode == .highAvailability { startCandidacy(c, after: 0) }
        runCoordinator(c)
    }

    func crashCoordinator(_ c: Int) {
        guard coordinators[c].running else { return }
        coordinators[c].running = false
        coordinators[c].core = nil
        coordinators[c].supervisor.candidacy += 1
        trace.record(now, "\(coordinators[c].name) crashes", 2, Int64(c))
    }

    /// The loop: carries out pending work; when there is none, one iteration if anything is due;
    /// otherwise sleeps until the core's next deadline.
    func runCoordinator(_ c: Int) {
        while coordinators[c].running, !coordinators[c].blocked, now >= coordinators[c].pausedUntil {
            if let next = coordinators[c].work.popLast() {
                perform(c, next)
                continue
            }
            let time = coordinatorTime(c)
            guard let (deadline, takesFrames) = coordinators[c].loopState(at: time) else { return }
            let due = deadline <= time.monotonicMilliseconds
            let frames = takesFrames && !coordinators[c].inbox.isEmpty
            guard due || !coordinators[c].mailbox.isEmpty || frames || !coordinators[c].answers.isEmpty
                    || !coordinators[c].pulses.isEmpty else {
                sleep(c, until: deadline)
                return
            }
            if coordinators[c].spinsAt.time == now {
                coordinators[c].spinsAt.count += 1
                if coordinators[c].spinsAt.count == 1_000 {
                    violation("\(coordinators[c].name) runs its loop 1,000 times at one instant without sleeping")
                    return
                }
            } else {
                coordinators[c].spinsAt = (now, 0)
            }
            var iteration = coordinators[c].mailbox.map(SimCoordinator.Work.observe)
            coordinators[c].mailbox.removeAll()
            iteration += coordinators[c].pulses.map(SimCoordinator.Work.pulse)
            coordinators[c].pulses.removeAll()
            iteration += coordinators[c].answers.map(SimCoordinator.Work.answer)
            coordinators[c].answers.removeAll()
            let take = takesFrames ? min(coordinators[c].inbox.count, settings.batchLimit) : 0
            iteration += coordinators[c].inbox.prefix(take).map { .receive(routingID: $0.routingID, bytes: $0.bytes) }
            coordinators[c].inbox.removeFirst(take)
            iteration += [.tick, .endTurn]
            coordinators[c].doFirst(iteration)
        }
    }

    private func sleep(_ c: Int, until monotonic: Int64) {
        let at = (monotonic - coordinators[c].clockOffset) * 1000
        if let wakeAt = coordinators[c].wakeAt, wakeAt <= at, wakeAt > now { return }
        coordinators[c].wakeToken += 1
        coordinators[c].wakeAt = at
        scheduler.schedule(.coordinatorWake(c, generation: coordinators[c].generation, token: coordinators[c].wakeToken), at: at)
    }

    private func perform(_ c: Int, _ work: SimCoordinator.Work) {
        let time = coordinatorTime(c)
        var actions: [CoordinatorAction] = []
        switch work {
        case .observe(let news):
            trace.record(now, "\(coordinators[c].name) learns \(news)", 3, Int64(c))
            actions = coordinators[c].core!.observe(news, at: time)
        case .pulse(let bytes):
            actions = coordinators[c].core!.heardPulse([Array(CoordinatorCore.pulseTopic.utf8), bytes], at: time)
        case .answer(let outcome):
            actions = coordinators[c].core!.take(outcome, at: time)
            if case .committed(let id) = outcome, diesAfterAnswering(c, commit: id) {
                coordinators[c].doFirst(actions.map(SimCoordinator.Work.action) + [.crash])
                return
            }
        case .receive(let routingID, let bytes):
            operationsSeen(c, bytes)
            actions = coordinators[c].core!.receive(InboundFrame(frames: [routingID, bytes]), at: time)
        case .tick:
            actions = coordinators[c].core!.tick(at: time)
        case .endTurn:
            actions = coordinators[c].core!.endTurn(at: time)
        case .action(let action):
            execute(c, action)
            return
        case .crash:
            crashAfterCommit(c)
            return
        }
        coordinators[c].doFirst(actions.map(SimCoordinator.Work.action))
    }

    /// Nothing to do with a frame but to note it for the trace.
    private func operationsSeen(_ c: Int, _ bytes: [UInt8]) {
        trace.record(now, "\(coordinators[c].name) takes a frame", 4, Int64(c), bytes: bytes)
    }

    private func execute(_ c: Int, _ action: CoordinatorAction) {
        let generation = coordinators[c].generation
        switch action {
        case .reply(let routingID, let envelope):
            let bytes = envelope.serializedBytes()
            let target = String(decoding: routingID, as: UTF8.self)
            if let n = nodeIndex[target] {
                let epoch = nodes[n].epoch
                for at in network.deliveries(from: .coordinator(c), to: .node(n), at: now, rng: &rng)
                where nodes[n].target == c {
                    scheduler.schedule(.nodeReply(n, generation: nodes[n].generation, epoch: epoch, bytes: bytes), at: at)
                }
            } else if let k = clients.firstIndex(where: { $0.id == target }) {
                for at in network.deliveries(from: .coordinator(c), to: .client(k), at: now, rng: &rng) {
                    scheduler.schedule(.clientReply(k, bytes: bytes), at: at)
                }
            }
        case .publish(let topic, let publication):
            let bytes = publication.bytes
            let topicBytes = Array(topic.utf8)
            // PUB/SUB filters by prefix: a node hears the topics it subscribes to (its own feed, `all` as a
            // full replica, heartbeats). A feed's only possible subscriber is its node (no subscription of
            // a node is a prefix of another node's feed), so a feed is matched against that node alone.
            let candidates = topic.hasPrefix("ev.") && topic.hasSuffix("\u{0}")
                ? nodeIndex[String(topic.dropFirst(3).dropLast())].map { [$0] } ?? [] : Array(nodes.indices)
            for n in candidates where nodes[n].hears(topic) {
                for at in network.deliveries(from: .coordinator(c), to: .node(n), at: now, rng: &rng) {
                    scheduler.schedule(.nodePublication(n, generation: nodes[n].generation, topic: topicBytes, bytes: bytes), at: at)
                }
            }
            if topic == CoordinatorCore.pulseTopic {
                for d in coordinators.indices where d != c && coordinators[d].running && coordinators[d].listeningTo == c {
                    for at in network.deliveries(from: .coordinator(c), to: .coordinator(d), at: now, rng: &rng) {
                        scheduler.schedule(.coordinatorPulse(d, generation: coordinators[d].generation, bytes: bytes), at: at)
                    }
                }
            }
            // A new leader's first publications may repeat the old leader's tail (K7): judged when made,
            // once per batch (on `all`; its copies on the nodes' feeds are the same bytes).
            if topic == EventTopic.everyBatch, case .eventBatch(let batch)? = publication.envelope.body,
               batch.term == coordinators[c].core?.term {
                checkInvariants(c, after: batch)
                if batch.originNode.isEmpty, case .declareNodeDead(let node)? = try? Command(wire: batch.command) {
                    checkDeclaration(by: c, of: node)
                }
            }
        case .commit(let commit):
            switch options.mode {
            case .embedded:
                // One writer thread: each commit syncs after the one before it.
                let done = max(now, coordinators[c].journalFreeAt) + Int64.random(in: 300...2_000, using: &rng)
                coordinators[c].journalFreeAt = done
                scheduler.schedule(.call { [unowned self] in
                    guard coordinators[c].isRunning(generation) else { return }   // died before the fsync: lost
                    journal.append(commit.entries)
                    scheduler.schedule(.coordinatorIO(c, generation: generation, .committed(commit.id)), at: now)
                }, at: done)
            case .highAvailability:
                storeCall(c, generation: generation) { [unowned self] in
                    do throws(StoreFailure) {
                        let turn = try store.append(commit.entries, ifLeading: commit.leadership, follows: commit.follows)
                        watchersSee(turn, committedBy: c, commit: commit.id)
                        return .committed(commit.id)
                    } catch {
                        return .commitFailed(commit.id, error)
                    }
                } failed: { .commitFailed(commit.id, $0) }
            }
        case .serveReplay(let routingID, let requestID, let after, let limit):
            block(c)
            switch options.mode {
            case .embedded:
                let batches = journal.batches(after: after, limit: limit)
                scheduler.schedule(.coordinatorIO(c, generation: generation, .replay(routingID: routingID, requestID: requestID,
                                                                                    after: after, .success(batches))), at: now + 200)
            case .highAvailability:
                storeCall(c, generation: generation) { [unowned self] in
                    let batches = store.loggedBatches(after: after).prefix(limit).map(\.encoded)
                    return .replay(routingID: routingID, requestID: requestID, after: after, .success(Array(batches)))
                } failed: { .replay(routingID: routingID, requestID: requestID, after: after, .failure($0 as any Error)) }
            }
        case .writeSnapshot(let snapshot, let keep, let leadership):
            switch options.mode {
            case .embedded:
                let done = max(now, coordinators[c].journalFreeAt) + 1_000
                coordinators[c].journalFreeAt = done
                scheduler.schedule(.call { [unowned self] in
                    guard coordinators[c].isRunning(generation) else { return }
                    journal.writeSnapshot(snapshot, keepingCommands: keep)
                }, at: done)
            case .highAvailability:
                storeCall(c, generation: generation) { [unowned self] in
                    do throws(StoreFailure) {
                        try store.writeSnapshot(snapshot, keepingCommands: keep, ifLeading: leadership)
                        return .snapshotWritten
                    } catch {
                        return .snapshotFailed(error)
                    }
                } failed: { .snapshotFailed($0) }
            }
        case .rebuildFromLog:
            block(c)
            storeCall(c, generation: generation) { [unowned self] in .rebuilt(store.snapshot, store.loggedBatches(after: 0)) }
                failed: { .readFailed($0) }
        case .readLog(let after):
            block(c)
            storeCall(c, generation: generation) { [unowned self] in .logRead(store.loggedBatches(after: after)) } failed: { .readFailed($0) }
        case .resign(let leadership):
            trace.record(now, "\(coordinators[c].name) resigns term \(leadership.term)", 5, Int64(c), leadership.term)
            resign(c, leadership)
        case .stop(let reason):
            trace.note(now, "\(coordinators[c].name) stops: \(reason)")
            crashCoordinator(c)
        case .listen(let leader):
            coordinators[c].listeningTo = leader.flatMap { address in coordinators.firstIndex { $0.name == address.name } }
        case .revokeLease(let lease):
            trace.record(now, "\(coordinators[c].name) suspects the leader and revokes its lease", 8, Int64(c), lease)
            revokeLease(c, lease)
        case .dropConnection, .suspendKey, .count, .log:
            break
        }
    }

    private func block(_ c: Int) { coordinators[c].blocked = true }

    /// An I/O action came back. A write's answer waits for the loop's next iteration; a read's
    /// unblocks the loop with it.
    func completeIO(_ c: Int, _ outcome: StoreAnswer) {
        switch outcome {
        case .committed, .commitFailed, .snapshotFailed, .snapshotWritten:
            coordinators[c].answers.append(outcome)
            runCoordinator(c)
            return
        default: break
        }
        let time = coordinatorTime(c)
        let actions = coordinators[c].core!.take(outcome, at: time)
        coordinators[c].blocked = false
        coordinators[c].doFirst(actions.map(SimCoordinator.Work.action))
        runCoordinator(c)
    }

    /// A request to the store: applied when it reaches the store (if it can), answered a little
    /// later; unreachable or without quorum, it fails after the request deadline.
    func storeCall(_ c: Int, generation: Int, _ apply: @escaping () -> StoreAnswer, failed: @escaping (StoreFailure) -> StoreAnswer) {
        let timeout = failed(StoreFailure(.unavailable, "etcd did not answer in time"))
        guard network.connected(.coordinator(c), .store), store.available else {
            scheduler.schedule(.coordinatorIO(c, generation: generation, timeout), at: now + 1_000_000)
            return
        }
        let there = now + Int64.random(in: 300...1_500, using: &rng) + store.slowBy
        scheduler.schedule(.call { [unowned self] in
            guard network.connected(.coordinator(c), .store), store.available else {
                scheduler.schedule(.coordinatorIO(c, generation: generation, timeout), at: now + 1_000_000)
                return
            }
            let outcome = apply()
            let back = now + Int64.random(in: 200...1_000, using: &rng)
            scheduler.schedule(.coordinatorIO(c, generation: generation, outcome), at: back)
        }, at: there)
    }

    /// After each published batch the leader's engine must hold every invariant: in the device groups
    /// the batch went to, where every rule acts (docs/POLICY.md "Device groups"), so that a batch costs
    /// what it touches; in the whole state every `HistoryChecker.wholeStateEvery` batches, and at the
    /// end (`verdict`).
    private func checkInvariants(_ c: Int, after batch: Camsync_V1_EventBatch) {
        let whole = batch.sequence % UInt64(HistoryChecker.wholeStateEvery) == 0
        guard let part = coordinators[c].statePart(groups: whole ? nil : batch.groups.map { NodeID($0.group) }) else { return }
        checkInvariants(of: part, by: c, at: batch.sequence)
    }

    func checkInvariants(of state: ClusterState, by c: Int, at sequence: UInt64) {
        let found = state.invariantViolations(settings: settings.policy)
        if !found.isEmpty { violation("\(coordinators[c].name) at sequence \(sequence): invariants broken: \(found.prefix(3))") }
    }

    func deferIfPaused(coordinator c: Int, _ event: Event) -> Bool {
        guard coordinators[c].pausedUntil > now else { return false }
        scheduler.schedule(event, at: coordinators[c].pausedUntil)
        return true
    }
}
