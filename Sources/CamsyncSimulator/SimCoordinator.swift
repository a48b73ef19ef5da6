import CamsyncCoordinator
import CamsyncEtcd
import CamsyncHistory
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import CamsyncCoordinatorCore

/// One coordinator process of the simulation: the real `CoordinatorCore`, run by the real turn
/// (`CoordinatorPhase.turn`, `CoordinatorCore.run(_:in:polled:)`) in the simulated world
/// (`SimCoordinatorWorld`). Each phase runs at the simulated instant the previous one's work ended
/// (`SimWorkCosts`), so what arrives meanwhile waits for the phase that takes it. Log writes and reads
/// are not awaited: their answers come back later, in any order from the store, in order from the journal.
struct SimCoordinator {
    let index: Int
    let name: String
    var generation = 0
    var running = false
    var pausedUntil: Int64 = 0
    var core: CoordinatorCore?
    /// This incarnation's world (the seam the turn runs on).
    var world: SimCoordinatorWorld?
    /// This incarnation's monotonic clock: simulated ms + offset.
    var clockOffset: Int64 = 0
    /// Frames on the command socket, from `inboxHead` on.
    var inbox: [(routingID: [UInt8], bytes: [UInt8])] = []
    var inboxHead = 0
    var mailbox: [LeadershipEvent] = []
    /// Pulses heard on the SUB to the leader, and which coordinator it listens to.
    var pulses: [[UInt8]] = []
    var listeningTo: Int?
    /// The last pulse that reached this coordinator: from which coordinator, when (µs).
    var pulseDelivered: (from: Int, at: Int64)?
    /// The log's answers to writes and reads in flight, taken at the answers phase, the next last.
    var answers: [StoreAnswer] = []
    /// The index in `CoordinatorPhase.turn` of the next phase of the iteration under way.
    var phase: Int?
    /// What the poll saw when the iteration under way began.
    var polled = CoordinatorReadiness(pulse: false)
    /// Work done and not yet waited for (µs beyond the simulated now): the process's clock runs ahead.
    var ahead: Int64 = 0
    /// Until when the loop thread is busy with the work of its last iteration (µs).
    var busyUntil: Int64 = 0
    /// Until when the publisher's thread is busy with the copies handed to it (µs).
    var publisherFreeAt: Int64 = 0
    /// When the journal's writer thread is free again (embedded: writes are done in order).
    var journalFreeAt: Int64 = 0
    /// Work costs this many times what `SimWorkCosts` says (a slow-process fault), until `slowUntil`.
    var slowdown: Int64 = 1
    var slowUntil: Int64 = 0
    /// A stall due in the next iteration's `phase` (the thread descheduled while it works): µs charged there.
    var stall: (phase: CoordinatorPhase, microseconds: Int64)?
    /// A starved machine: until `until`, every iteration stalls in one of `phases` (a stall fault).
    var stalling: (until: Int64, phases: [CoordinatorPhase])?
    var wakeToken = 0
    var wakeAt: Int64?
    var supervisor: SimSupervisor
    /// Iterations at one instant (a loop that never sleeps is a bug).
    var spinsAt: (time: Int64, count: Int) = (0, 0)

    init(index: Int, name: String, leaseSeconds: Int64) {
        self.index = index
        self.name = name
        supervisor = SimSupervisor(leaseSeconds: leaseSeconds)
    }

    func isRunning(_ generation: Int) -> Bool { running && self.generation == generation }

    var framesWaiting: Bool { inboxHead < inbox.count }

    /// The next frame waiting, the queue compacted now and then.
    mutating func takeFrame() -> (routingID: [UInt8], bytes: [UInt8])? {
        guard inboxHead < inbox.count else { return nil }
        let frame = inbox[inboxHead]
        inboxHead += 1
        if inboxHead == inbox.count {
            inbox.removeAll(keepingCapacity: true)
            inboxHead = 0
        } else if inboxHead >= 1_024 {
            inbox.removeFirst(inboxHead)
            inboxHead = 0
        }
        return frame
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

    /// Coordinator `c`'s clocks: its monotonic clock runs ahead of the simulated now by the work its
    /// iteration has done so far.
    func coordinatorTime(_ c: Int) -> CoordinatorTime {
        CoordinatorTime(monotonicMilliseconds: (now + coordinators[c].ahead) / 1000 + coordinators[c].clockOffset,
                        wallMilliseconds: wall.milliseconds + coordinators[c].ahead / 1000)
    }

    /// A new incarnation: HA cores read their state from the store; the embedded one recovers from its journal.
    func startCoordinator(_ c: Int) {
        var process = SimCoordinator(index: c, name: coordinators[c].name, leaseSeconds: options.leaseSeconds)
        process.generation = coordinators[c].generation + 1
        process.running = true
        process.clockOffset = Int64.random(in: 0...100_000, using: &rng)
        process.wakeToken = coordinators[c].wakeToken
        process.world = SimCoordinatorWorld(simulation: self, coordinator: c, generation: process.generation)
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
        if options.mode == .highAvailability { startCandidacy(c) }
        runCoordinator(c)
    }

    func crashCoordinator(_ c: Int) {
        guard coordinators[c].running else { return }
        coordinators[c].running = false
        coordinators[c].core = nil
        coordinators[c].phase = nil
        trace.record(now, "\(coordinators[c].name) crashes", 2, Int64(c))
    }

    /// The loop's poll: when an iteration is due (input waiting, or the core's deadline passed) and the
    /// thread is free, the iteration begins; otherwise it sleeps until the core's next deadline.
    func runCoordinator(_ c: Int) {
        // Iterations at one instant follow each other here, not by recursion: a loop that never
        // sleeps (what `spinsAt` catches) must not run the simulator out of stack first.
        while beginIteration(c), runPhases(c) {}
    }

    /// Starts an iteration when one is due; false when the loop sleeps (a wake is scheduled) or is down.
    private func beginIteration(_ c: Int) -> Bool {
        guard coordinators[c].running, coordinators[c].phase == nil, now >= coordinators[c].pausedUntil else { return false }
        if coordinators[c].busyUntil > now {
            wake(c, at: coordinators[c].busyUntil)
            return false
        }
        let time = coordinatorTime(c)
        guard let (deadline, takesFrames) = coordinators[c].loopState(at: time) else { return false }
        let due = deadline <= time.monotonicMilliseconds
        let frames = takesFrames && coordinators[c].framesWaiting
        guard due || !coordinators[c].mailbox.isEmpty || frames || !coordinators[c].answers.isEmpty
                || !coordinators[c].pulses.isEmpty else {
            wake(c, at: (deadline - coordinators[c].clockOffset) * 1000)
            return false
        }
        if coordinators[c].spinsAt.time == now {
            coordinators[c].spinsAt.count += 1
            if coordinators[c].spinsAt.count == 1_000 {
                violation("\(coordinators[c].name) runs its loop 1,000 times at one instant without sleeping")
                finished = true   // it would spin again at every event: the run ends here
                return false
            }
        } else {
            coordinators[c].spinsAt = (now, 0)
        }
        coordinators[c].polled = CoordinatorReadiness(pulse: !coordinators[c].pulses.isEmpty)
        if let stalling = coordinators[c].stalling, coordinators[c].stall == nil {
            if now < stalling.until {
                coordinators[c].stall = (stalling.phases[Int.random(in: 0..<stalling.phases.count, using: &faultRNG)],
                                         randomDelay(450_000...1_200_000))
            } else {
                coordinators[c].stalling = nil
            }
        }
        coordinators[c].phase = 0
        return true
    }

    /// The iteration's next phase, once the work of the one before it is done; at the end of the
    /// iteration the loop polls again.
    func continueTurn(_ c: Int) {
        if runPhases(c) { runCoordinator(c) }
    }

    /// Runs the iteration's phases from the next one: back to back while their work is short, else
    /// the next one at the instant this one's work ends (false: scheduled, or the process died).
    private func runPhases(_ c: Int) -> Bool {
        let generation = coordinators[c].generation
        while let index = coordinators[c].phase {
            guard var core = coordinators[c].core.take(), let world = coordinators[c].world else { return false }
            let phase = CoordinatorPhase.turn[index]
            do {
                try core.run(phase, in: world, polled: coordinators[c].polled)
            } catch {
                violation("\(coordinators[c].name)'s \(phase) phase threw \(error)")
            }
            guard coordinators[c].isRunning(generation) else { return false }   // died in the phase
            coordinators[c].core = core
            if let stall = coordinators[c].stall, stall.phase == phase {
                coordinators[c].ahead += stall.microseconds
                coordinators[c].stall = nil
            }
            world.checkPublished()
            coordinators[c].phase = index + 1 < CoordinatorPhase.turn.count ? index + 1 : nil
            let ahead = coordinators[c].ahead
            if coordinators[c].phase == nil {
                coordinators[c].ahead = 0
                coordinators[c].busyUntil = now + ahead
                break
            }
            if ahead >= SimWorkCosts.yieldAfter {
                coordinators[c].ahead = 0
                scheduler.schedule(.coordinatorPhase(c, generation: generation), at: now + ahead)
                return false
            }
        }
        return true
    }

    private func wake(_ c: Int, at time: Int64) {
        if let wakeAt = coordinators[c].wakeAt, wakeAt <= time, wakeAt > now { return }
        coordinators[c].wakeToken += 1
        coordinators[c].wakeAt = time
        scheduler.schedule(.coordinatorWake(c, generation: coordinators[c].generation, token: coordinators[c].wakeToken), at: time)
    }

    /// A log write's or read's answer came back: the answers phase takes it.
    func completeIO(_ c: Int, _ outcome: StoreAnswer) {
        coordinators[c].answers.insert(outcome, at: 0)
        runCoordinator(c)
    }

    /// A request to the store, sent at `sent` (µs): applied when it reaches the store (if it can),
    /// answered a little later; unreachable or without quorum, it fails after the request deadline.
    func storeCall(_ c: Int, generation: Int, sent: Int64, _ apply: @escaping () -> StoreAnswer,
                   failed: @escaping (StoreFailure) -> StoreAnswer) {
        let timeout = failed(StoreFailure(.unavailable, "etcd did not answer in time"))
        guard network.connected(.coordinator(c), .store), store.available else {
            scheduler.schedule(.coordinatorIO(c, generation: generation, timeout), at: sent + 1_000_000)
            return
        }
        let there = sent + Int64.random(in: 300...1_500, using: &rng) + store.slowBy
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
    func checkInvariants(_ c: Int, after batch: Camsync_V1_EventBatch) {
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
