import CamsyncConfig
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncNode
import CamsyncPolicy
import CamsyncRuntime
import CamsyncHistory
import CamsyncWorkload
import CamsyncWire
import CamsyncCoordinatorCore

/// A deterministic simulation of a whole cluster (`camsync sim`): the real `CoordinatorCore`s and
/// `NodeSession`s, driven through a simulated network, a simulated etcd (`SimStore`) or journal, and
/// simulated clocks, with faults the seed chooses. One process, one thread, one seed → the same
/// run, byte for byte (`traceHash`). docs/TESTING.md says what it covers and what it does not.
///
/// Time is in microseconds; each process reads milliseconds of its own monotonic clock (an offset
/// per incarnation) and the one wall clock.
public final class Simulation {
    public let options: SimulationOptions

    enum Event {
        case coordinatorFrame(Int, generation: Int, routingID: [UInt8], bytes: [UInt8])
        case coordinatorNews(Int, generation: Int, LeadershipEvent)
        /// The leader's pulse reaching a standby's SUB.
        case coordinatorPulse(Int, generation: Int, from: Int, bytes: [UInt8])
        case coordinatorWake(Int, generation: Int, token: Int)
        /// The next phase of a coordinator's iteration, once the work of the one before it is done.
        case coordinatorPhase(Int, generation: Int)
        case coordinatorIO(Int, generation: Int, StoreAnswer)
        case supervisor(Int, generation: Int, SupervisorAnswer)
        /// A reply, or (with `topic`) a push of the feed, from coordinator `from` on the node's connection
        /// to it numbered `epoch`.
        case nodeReply(Int, generation: Int, from: Int, epoch: Int, bytes: [UInt8])
        case nodePublication(Int, generation: Int, from: Int, epoch: Int, topic: [UInt8], bytes: [UInt8])
        case nodeWake(Int, generation: Int, token: Int)
        case clientReply(Int, bytes: [UInt8])
        case clientWake(Int, token: Int)
        case observerReply(Int, bytes: [UInt8])
        case observerWake(Int)
        case lessorTick
        case fault
        /// The next fault of etcd's log watch (`WatchFaults`, HA only).
        case watchFault
        /// The next fault of a node's feed (`FeedFaults`).
        case feedFault
        case heal(Heal)
        case endFaults
        case finish
        /// Something the store does at the moment a request reaches it.
        case call(() -> Void)
    }

    var scheduler = SimScheduler<Event>()
    /// Latencies, drops and clock offsets.
    var rng: SplitMix64
    /// The fault schedule, on a stream of its own so that a change elsewhere leaves a seed's faults as they were.
    var faultRNG: SplitMix64
    var watchFaults: WatchFaults
    var feedFaults: FeedFaults
    var trace: SimTrace
    var store = SimStore()
    var journal = SimJournal()
    var coordinators: [SimCoordinator] = []
    var nodes: [SimNode] = []
    /// Node id → index in `nodes` (replies are routed, and feeds published, by id).
    var nodeIndex: [String: Int] = [:]
    var clients: [SimClient] = []
    var observers: [SimObserver] = []
    var network = SimNetwork()
    /// What work costs the simulated processes.
    let workCosts = SimWorkCosts()
    /// Each published batch's previous batch in each device group it went to (sequence → group →
    /// previous), for the node group-chain oracle (`checkGroupChain`).
    var groupPrevious: [UInt64: [String: UInt64]] = [:]
    /// Since when each coordinator leads (µs), for the healthy-leader oracle.
    var leadingSince: [Int: Int64] = [:]
    var violations: [String] = []
    var faultCounts: [String: Int] = [:]
    var acks: [AcknowledgedCommand] = []
    var nodeEntries: [NodeHistoryEntry] = []
    var stops: [NodeStopped] = []
    var operations = 0
    /// Acknowledgements a client had through a node's control socket.
    var controlAcks = 0
    /// Until when each process was last disturbed by a fault (µs), and every process by a network-wide one.
    var disturbedUntil: [SimNetwork.Endpoint: Int64] = [:]
    var everyoneDisturbedUntil: Int64 = 0
    /// Coordinators whose thread a fault stalled, until when: it excuses their leadership and a node's
    /// slow sync, never a node declared dead (K7).
    var stalledUntil: [Int: Int64] = [:]
    var faultPhase = true
    var finished = false
    let settings: CoordinatorSettings
    let nodeConfigs: [NodeConfig]
    let wallBase: Int64 = 1_750_000_000_000

    public init(options: SimulationOptions) throws {
        self.options = options
        rng = SplitMix64(seed: options.seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        faultRNG = SplitMix64(seed: options.seed ^ 0xFA17_5EED_0000_0000)
        watchFaults = WatchFaults(seed: options.seed)
        feedFaults = FeedFaults(seed: options.seed)
        trace = SimTrace(keepsLines: options.trace)
        var settings = CoordinatorSettings(commandEndpoint: "", eventEndpoint: "", dataDirectory: "",
                                           heartbeatIntervalMilliseconds: options.heartbeatMilliseconds,
                                           liveness: options.liveness, snapshotEvery: 200, retryWindow: 65_536,
                                           policy: PolicySettings(pipRestoreDeadlineMilliseconds: 500))
        settings.plantedBug = options.plantedBug
        // One a turn, and a backlog of a twelfth of the nodes (none at six), so that the refusal is
        // taken at a few nodes too (a join storm of six), and the backlog in a larger fleet.
        settings.snapshotsPerTurn = 1
        settings.snapshotBacklog = options.nodes / 12
        self.settings = settings
        nodeConfigs = try SimTopology.nodeConfigs(count: options.nodes)
    }

    /// Runs the seed to the end and judges it.
    public func run() throws -> SimulationResult {
        start()
        while !finished, let event = scheduler.next() {
            handle(event)
        }
        return try verdict()
    }

    var now: Int64 { scheduler.now }
    var nowMilliseconds: Int64 { scheduler.now / 1000 }
    var wall: Instant { Instant(milliseconds: wallBase + nowMilliseconds) }

    func at(milliseconds: Int64) -> Int64 { milliseconds * 1000 }

    // MARK: Start and end

    private func start() {
        for index in 0..<options.coordinators {
            coordinators.append(SimCoordinator(index: index, name: "c\(index + 1)", leaseSeconds: options.leaseSeconds))
            startCoordinator(index)
        }
        for (index, config) in nodeConfigs.enumerated() {
            nodes.append(SimNode(index: index, config: config, coordinators: options.coordinators))
            nodeIndex[config.id.rawValue] = index
            startNode(index)
        }
        for index in 0..<options.clients {
            clients.append(SimClient(index: index, seed: options.seed &+ UInt64(index) &* 7919, coordinators: options.coordinators))
            scheduleClient(index, after: 500_000 + Int64(index) * 1_000)
        }
        for index in 0..<options.observers {
            observers.append(SimObserver(index: index, coordinators: options.coordinators))
            scheduler.schedule(.observerWake(index), at: SimObserver.period)
        }
        if options.mode == .highAvailability { scheduler.schedule(.lessorTick, at: SimStore.lessorTick * 1000) }
        if options.faults { scheduler.schedule(.fault, at: randomDelay(1_000_000...3_000_000)) }
        if options.faults, options.mode == .highAvailability {
            scheduler.schedule(.watchFault, at: watchFaults.delay(2_000_000...5_000_000))
        }
        if options.faults { scheduler.schedule(.feedFault, at: feedFaults.delay(1_000_000...4_000_000)) }
        scheduler.schedule(.endFaults, at: Int64(options.faultSeconds * 1_000_000))
        scheduler.schedule(.finish, at: Int64((options.faultSeconds + options.livenessSeconds) * 1_000_000))
    }

    private func handle(_ event: Event) {
        switch event {
        case .coordinatorFrame(let c, let generation, let routingID, let bytes):
            guard coordinators[c].isRunning(generation) else { return }
            if deferIfPaused(coordinator: c, event) { return }
            coordinators[c].inbox.append((routingID, bytes))
            runCoordinator(c)
        case .coordinatorNews(let c, let generation, let news):
            guard coordinators[c].isRunning(generation) else { return }
            if deferIfPaused(coordinator: c, event) { return }
            coordinators[c].mailbox.append(news)
            runCoordinator(c)
        case .coordinatorPulse(let c, let generation, let from, let bytes):
            guard coordinators[c].isRunning(generation) else { return }
            if deferIfPaused(coordinator: c, event) { return }
            coordinators[c].pulses.append(bytes)
            coordinators[c].pulseDelivered = (from, now)
            runCoordinator(c)
        case .coordinatorWake(let c, let generation, let token):
            guard coordinators[c].isRunning(generation), coordinators[c].wakeToken == token else { return }
            if deferIfPaused(coordinator: c, event) { return }
            coordinators[c].wakeAt = nil
            runCoordinator(c)
        case .coordinatorPhase(let c, let generation):
            guard coordinators[c].isRunning(generation) else { return }
            if deferIfPaused(coordinator: c, event) { return }
            continueTurn(c)
        case .coordinatorIO(let c, let generation, let outcome):
            guard coordinators[c].isRunning(generation) else { return }
            if deferIfPaused(coordinator: c, event) { return }
            completeIO(c, outcome)
        case .supervisor(let c, let generation, let answer):
            guard coordinators[c].isRunning(generation) else { return }
            if deferIfPaused(coordinator: c, event) { return }
            supervise(c, answer)
        case .nodeReply(let n, let generation, let c, let epoch, let bytes):
            guard nodes[n].isRunning(generation), nodes[n].epochs[c] == epoch else { return }
            if deferIfPaused(node: n, event) { return }
            nodeReceivesReply(n, bytes)
        case .nodePublication(let n, let generation, let c, let epoch, let topic, let bytes):
            guard nodes[n].isRunning(generation), nodes[n].epochs[c] == epoch else { return }
            if deferIfPaused(node: n, event) { return }
            nodeReceivesPublication(n, topic: topic, bytes)
        case .nodeWake(let n, let generation, let token):
            guard nodes[n].isRunning(generation), nodes[n].wakeToken == token else { return }
            if deferIfPaused(node: n, event) { return }
            nodeTick(n)
        case .clientReply(let k, let bytes):
            clientReceives(k, bytes)
        case .clientWake(let k, let token):
            guard clients[k].wakeToken == token else { return }
            clientWakes(k)
        case .observerReply(let o, let bytes):
            observerReceives(o, bytes)
        case .observerWake(let o):
            observerWakes(o)
        case .lessorTick:
            lessorTick()
        case .fault:
            guard faultPhase else { return }
            injectFault()
            scheduler.schedule(.fault, at: now + randomDelay(800_000...3_500_000))
        case .watchFault:
            guard faultPhase else { return }
            injectWatchFault()
            scheduler.schedule(.watchFault, at: now + watchFaults.delay(2_000_000...6_000_000))
        case .feedFault:
            guard faultPhase else { return }
            injectFeedFault()
            scheduler.schedule(.feedFault, at: now + feedFaults.delay(1_500_000...4_000_000))
        case .heal(let heal):
            apply(heal)
        case .endFaults:
            endFaults()
        case .finish:
            finished = true
        case .call(let body):
            body()
        }
    }

    func randomDelay(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &faultRNG) }

    // MARK: Verdict

    private func verdict() throws -> SimulationResult {
        livenessChecks()
        let leader = coordinators.firstIndex { $0.core?.role.isLeading == true }
        let core = leader.flatMap { coordinators[$0].core } ?? coordinators.compactMap(\.core).max { $0.sequence < $1.sequence }
        if let leader, let core { checkInvariants(of: core.state, by: leader, at: core.sequence) }
        let log: [JournalEntry]
        let snapshot: JournalSnapshot?
        switch options.mode {
        case .highAvailability:
            log = store.entries(after: 0)
            snapshot = store.snapshot
        case .embedded:
            log = journal.entries
            snapshot = journal.snapshot
        }
        groupChainChecks(log)
        let replicas = nodes.filter { $0.session != nil }.map {
            ReplicaState(node: $0.config.id, state: $0.session!.replica.state, sequence: $0.session!.replica.sequence,
                         group: $0.session!.replica.group, groupSequence: $0.session!.replica.groupSequence)
        }
        let faults = faultCounts.sorted { $0.key < $1.key }.map { FaultCount(kind: $0.key, count: $0.value) }
        let history = try HistoryAssembly.history(
            nodeEntries: nodeEntries, acks: acks, stops: stops, log: log, newestSnapshot: snapshot,
            coordinatorState: core?.state ?? ClusterState(), coordinatorSequence: core?.sequence ?? 0,
            coordinatorGroupSequences: Dictionary(uniqueKeysWithValues: (core?.groupSequences.all ?? []).map { ($0.group, $0.sequence) }),
            replicas: replicas, operations: operations, faults: faults, endedAt: wall)
        let report = HistoryChecker.check(history, settings: settings.policy)
        trace.note(now, "verdict: \(report.passed && violations.isEmpty ? "passed" : "failed")")
        return SimulationResult(options: options, traceHash: trace.hash, traceLines: trace.lines, report: report,
                                oracleViolations: violations, simulatedMilliseconds: nowMilliseconds, events: trace.events,
                                operations: operations, acknowledged: acks.count, acknowledgedThroughNodes: controlAcks,
                                faults: faults)
    }

    /// Every batch names, for each device group it goes to, the group's previous batch in the log
    /// (docs/PROTOCOL.md "Device groups"): a wrong pointer would make a follower of the group miss a
    /// batch or wait for one that never comes.
    private func groupChainChecks(_ log: [JournalEntry]) {
        var last: [String: UInt64] = [:]
        for entry in log {
            guard let batch = try? Camsync_V1_EventBatch(serializedBytes: entry.batch) else {
                violation("the log's batch \(entry.sequence) does not decode")
                continue
            }
            for group in batch.groups {
                if let previous = last[group.group], group.sequence != previous {
                    violation("batch \(batch.sequence) names \(group.sequence) as group \(group.group)'s previous batch; the log's is \(previous)")
                }
                last[group.group] = batch.sequence
            }
        }
    }

    func violation(_ message: String) {
        trace.note(now, "VIOLATION \(message)")
        if violations.count < 50 { violations.append("at \(SimTrace.clock(now)) s: \(message)") }
    }
}
