public import CamsyncPolicy
public import CamsyncWire

/// The answer to one command.
public enum CommandOutcome: Sendable, Hashable {
    /// Applied under `sequence`; `events` are what the engine reported (none for a retry: its reply is
    /// the ack, and the events went out with the original).
    case accepted(sequence: UInt64, events: [Event])
    /// Refused; nothing changed.
    case refused(Camsync_V1_ErrorCode, message: String, rejection: Rejection?)

    /// What the retry window keeps (K5): the reply, not the events. Keeping the events of the last
    /// 65,536 commands held tens of MB and freed each command's events a window later, cold, on the loop.
    var asRemembered: CommandOutcome {
        if case .accepted(let sequence, _) = self { return .accepted(sequence: sequence, events: []) }
        return self
    }
}

/// The sans-I/O heart of the coordinator: the whole protocol logic of the command socket (decoding,
/// authentication, authorisation, the engine, sequence numbers, retries (K5), liveness (K1), deadlines,
/// snapshots and replays) as a value that takes frames and time and returns `CoordinatorAction`s.
/// The shell (`CoordinatorLoop`) owns sockets, the log and the clocks, and only carries the actions out.
public struct CoordinatorCore: Sendable {
    public let settings: CoordinatorSettings
    public internal(set) var engine: PolicyEngine
    public internal(set) var sequence: UInt64
    /// The term replies and batches are stamped with: the journal's incarnation count, or in HA
    /// the etcd leader key's create revision (`becomeLeader(term:…)`).
    public internal(set) var term: UInt64
    /// Embedded (always leading), or HA with its phase and its knowledge of etcd (SPEC K6).
    public internal(set) var mode: CoordinatorMode = .embedded
    public internal(set) var counters = CoordinatorCounters()
    /// The turn being gathered: its log appends, and the replies and publications that wait for them.
    var turn = Turn()
    /// The leader's working set, held exactly while this core leads (`LeaderWork`).
    var leaderWork: LeaderWork?
    /// The next commit's id. It goes on across leaderships: a late answer to an old leadership's
    /// commit must not match a new one's.
    var nextCommitID: UInt64 = 1
    /// The last committed batches: replays are served from here when they can be, and a new leader
    /// publishes its tail again (K7).
    public internal(set) var recentBatches = RecentBatches(capacity: CoordinatorCore.recentBatchCapacity)
    /// The sequence of each device group's last batch: stamped on every batch (`EventBatch.groups`)
    /// and kept in snapshots (docs/PROTOCOL.md "Device groups").
    public internal(set) var groupSequences = GroupSequences()
    /// Which groups' bookmarks go out at the next heartbeat.
    var bookmarks = BookmarkSchedule()
    /// The state's snapshot message at its sequence and term (without liveness and counters).
    var snapshotCache: Camsync_V1_Snapshot?
    /// Connections refused for holding another node's route, dropped once their refusal has left.
    var routeDrops: [RouteDrop] = []
    /// When the next "coordinator stats" log line is due (monotonic ms; 0: at the first tick).
    var nextStatsLog: Int64 = 0
    /// The last sequence the log holds durably (and that has been published): what replays can serve.
    public internal(set) var committedSequence: UInt64
    var lastSnapshotSequence: UInt64
    /// Engine time (wall milliseconds), never going backwards across restarts.
    public internal(set) var lastEngineTime: Int64
    /// The liveness clocks of the last leadership, kept only for the planted bug `skip-liveness-reset`.
    var plantedBugClocks: [NodeID: Int64] = [:]
    /// When each node's heartbeat (and due bookmark) is pushed within the interval.
    var heartbeatSlots = HeartbeatSlots()
    /// The bookmarks due in the current interval, by group, each encoded once.
    var dueBookmarks: [NodeID: Publication] = [:]
    var retries: RetryWindow<CommandOutcome>
    /// Outstanding camera claims, for the claim→grant latency metric.
    var claims = ClaimLatency()
    public var livenessTimeoutMilliseconds: Int64 { settings.livenessTimeoutMilliseconds }

    /// How many committed batches the core keeps in memory for replays (about 200 bytes to 2 KiB each).
    public static let recentBatchCapacity = 16_384

    /// A core over `state` after `sequence` (a recovered snapshot, or empty), in `term`.
    public init(settings: CoordinatorSettings, state: ClusterState = ClusterState(), sequence: UInt64 = 0, term: UInt64,
                lastEngineTime: Int64 = 0, groupSequences: GroupSequences = GroupSequences()) {
        self.settings = settings
        self.groupSequences = groupSequences
        self.engine = PolicyEngine(settings: settings.policy, state: state)
        self.sequence = sequence
        self.term = term
        self.committedSequence = sequence
        self.lastSnapshotSequence = sequence
        self.lastEngineTime = lastEngineTime
        self.retries = RetryWindow(capacity: settings.retryWindow)
        // An embedded core always leads (`role`); `beginServing` starts its clocks afresh.
        self.leaderWork = LeaderWork(startingAt: 0)
    }

    /// An HA coordinator's core, reachable at `address`: it reads its state from etcd first, and
    /// leads only once etcd elects it (SPEC K6).
    public init(settings: CoordinatorSettings, highAvailability address: Camsync_V1_CoordinatorAddress) {
        self.init(settings: settings, term: 0)
        mode = .highAvailability(HighAvailability(address: address))
        leaderWork = nil   // it leads once etcd elects it and it has caught up (`lead`)
    }

    /// Leading (the only role of an embedded coordinator), or the role of its HA phase.
    public var role: CoordinatorRole {
        switch mode {
        case .embedded: .leading(nil)
        case .highAvailability(let state): state.phase.role
        }
    }

    /// The HA state, nil for an embedded coordinator.
    public var highAvailability: HighAvailability? {
        if case .highAvailability(let state) = mode { state } else { nil }
    }

    /// The HA state, on the paths only an HA coordinator takes (each entry point checks the mode
    /// first): reaching one in an embedded coordinator is a bug, and stops it.
    var ha: HighAvailability {
        get {
            guard case .highAvailability(let state) = mode else { cannotHappen("reading the HA state of an embedded coordinator") }
            return state
        }
        set {
            guard case .highAvailability = mode else { cannotHappen("changing the HA state of an embedded coordinator") }
            mode = .highAvailability(newValue)
        }
    }

    /// HA: how nodes reach this coordinator, once the shell knows the endpoints it bound.
    public mutating func advertise(_ address: Camsync_V1_CoordinatorAddress) {
        guard isHighAvailability else { return }
        ha.address = address
    }

    var isHighAvailability: Bool {
        if case .highAvailability = mode { true } else { false }
    }

    /// Starts serving at `time`: liveness grace and the first heartbeat count from here. An embedded
    /// coordinator leads from now on, in its journal's term, and says so (`camsync_coordinator_leading`
    /// 1 and its term: a single coordinator is a healthy leader, not a cluster without one); an HA
    /// core says so when etcd elects it.
    @discardableResult
    public mutating func beginServing(at time: CoordinatorTime) -> [CoordinatorAction] {
        committedSequence = sequence
        nextStatsLog = time.monotonicMilliseconds + Self.statsInterval
        guard !isHighAvailability else { return [] }
        leaderWork = LeaderWork(startingAt: time.monotonicMilliseconds)
        return counted([.count(.role(leading: true, term: term))])
    }

    public var state: ClusterState { engine.state }

    /// Replays a journaled command (K3): no authorisation, no retry window check.
    /// Returns false when the engine refuses it, which means the journal and engine disagree.
    public mutating func replay(sequence: UInt64, node: String, requestID: UInt64, command: Command, at time: Instant) -> Bool {
        let groupBefore = command.subjectNode.map(engine.state.group(of:))
        guard case .success(let events) = engine.apply(command, at: time) else { return false }
        _ = groupSequences.advance(command.groups(before: groupBefore, events: events, after: engine), to: sequence)
        self.sequence = sequence
        rememberApplied(sequence: sequence, node: node, requestID: requestID, at: time)
        return true
    }

    /// Handles one command from `sender`. `isAdmin` is true for the CLI's admin key and the coordinator itself.
    public mutating func handle(_ command: Command, from sender: String, requestID: UInt64, isAdmin: Bool,
                                at time: Instant) -> (outcome: CommandOutcome, isRetry: Bool) {
        let key = RetryWindow<CommandOutcome>.Key(node: sender, requestID: requestID)
        if let previous = retries.reply(for: key) {
            return (previous, true)
        }
        let outcome = decide(command, from: sender, isAdmin: isAdmin, at: time)
        retries.remember(outcome.asRemembered, for: key)
        return (outcome, false)
    }

    private mutating func decide(_ command: Command, from sender: String, isAdmin: Bool, at time: Instant) -> CommandOutcome {
        if !isAdmin {
            let node = NodeID(sender)
            if case .registerNode(let registration) = command {
                guard registration.node == node else {
                    return .refused(.forbidden, message: Self.bounded("node '\(sender)' cannot register as '\(registration.node)'"), rejection: nil)
                }
            } else {
                guard let record = engine.state.nodes[node] else {
                    return .refused(.unknownNode, message: Self.bounded("node '\(sender)' is not registered: send registerNode first"), rejection: nil)
                }
                guard record.alive else {
                    return .refused(.notRegistered, message: "node '\(sender)' was declared dead: register again (K2)", rejection: nil)
                }
                if case .declareNodeDead = command {
                    return .refused(.forbidden, message: "only the coordinator or an admin can declare a node dead", rejection: nil)
                }
                if let subject = command.subjectNode, subject != node, !isDisplayAction(command, display: subject, by: node) {
                    return .refused(.forbidden, message: Self.bounded("node '\(sender)' cannot act for '\(subject)'"), rejection: nil)
                }
                if let refusal = selfAttachRefusal(command, by: record) {
                    return .refused(.forbidden, message: Self.bounded(refusal), rejection: nil)
                }
            }
        }
        if var rejection = engine.noOpRefusal(command) {
            rejection.message = Self.bounded(rejection.message)
            return .refused(.rejected, message: rejection.message, rejection: rejection)
        }
        switch engine.apply(command, at: time) {
        case .success(let events):
            sequence += 1
            return .accepted(sequence: sequence, events: events)
        case .failure(var rejection):
            rejection.message = Self.bounded(rejection.message)
            return .refused(.rejected, message: rejection.message, rejection: rejection)
        }
    }

    /// A device may detach a display attached to it. Attaching is the display's own act (or an
    /// admin's): a device may not take a display, whoever it is attached to (docs/PROTOCOL.md).
    private func isDisplayAction(_ command: Command, display: NodeID, by device: NodeID) -> Bool {
        guard engine.state.nodes[display]?.kind == .display else { return false }
        switch command {
        case .detachDisplay: return engine.state.nodes[display]?.attachedTo == device
        default: return false
        }
    }

    /// SPEC §1: a display attaches itself only to the device its configuration names (its
    /// registration's `attachedTo`); anywhere else only an admin may attach it. The refusal, or nil.
    private func selfAttachRefusal(_ command: Command, by sender: NodeRecord) -> String? {
        guard case .attachDisplay(let display, let device) = command, display == sender.id,
              case .display(let attributes) = sender.registration.attributes, attributes.attachedTo != device else { return nil }
        let named = attributes.attachedTo.map { "'\($0)'" } ?? "no device"
        return "display '\(display)' attaches itself only to the device its configuration names (\(named)); only an admin may attach it to '\(device)' (SPEC §1)"
    }

    /// Refusal texts are kept in the retry window and sent back: keep them short whatever the input.
    static func bounded(_ message: String, limit: Int = 512) -> String {
        message.count <= limit ? message : String(message.prefix(limit)) + "…"
    }

    // MARK: Liveness (K1)

    /// Any traffic from a node counts as a heartbeat (a leader's: nobody else judges silence).
    public mutating func noteTraffic(from sender: String, at monotonicMilliseconds: Int64) {
        let node = NodeID(sender)
        guard leaderWork != nil, leaderWork?.lastSeen[node] != nil || engine.state.nodes[node] != nil else { return }
        leaderWork?.lastSeen[node] = monotonicMilliseconds
    }

    /// The frames phase found nothing more waiting at `time`: silence may be judged up to then. A
    /// leader that was deaf longer than a liveness timeout before this (a paused or starved process)
    /// starts its liveness clocks afresh, as when it begins to lead (K7): what its nodes sent meanwhile
    /// may have gone with the connections they reopened, and their silence over it is no evidence.
    public mutating func heardEverything(at time: CoordinatorTime) {
        guard leaderWork != nil else { return }
        let now = time.monotonicMilliseconds
        if let last = leaderWork?.heardAllAt,
           now - last > max(livenessTimeoutMilliseconds, 2 * settings.heartbeatIntervalMilliseconds) {
            leaderWork?.restartClocks(at: now)
        }
        leaderWork?.heardAllAt = now
    }

    /// Alive nodes whose silence exceeded the timeout, in id order (none unless leading). Nodes never
    /// heard from since this core began to lead get a full timeout of grace from then.
    public func silentNodes(at now: Int64) -> [NodeID] {
        guard let work = leaderWork else { return [] }
        return engine.state.nodes.filter { id, record in
            record.alive && livenessDeadline(of: id, in: work) <= now
        }.keys.sorted()
    }

    /// The first instant (monotonic ms) at which `node`'s silence exceeds the timeout.
    private func livenessDeadline(of node: NodeID, in work: LeaderWork) -> Int64 {
        work.heard(node) + livenessTimeoutMilliseconds + 1
    }

    /// What `silentNodes(at:)` answers, found from the deadlines due by `now` (`LivenessDeadlines`)
    /// instead of a pass over every node; the nodes not silent are watched again at their deadline.
    mutating func takeSilentNodes(at now: Int64) -> [NodeID] {
        // Taken out while it changes, so that it is changed in place, never copied; a leadership's
        // first look makes them, every alive node at its deadline.
        guard var deadlines = leaderWork?.deadlines.take() ?? leaderWork.map({ work in
            LivenessDeadlines(engine.state.nodes.filter(\.value.alive).keys.map { (node: $0, due: livenessDeadline(of: $0, in: work)) })
        }), let work = leaderWork else { return [] }
        var silent: [NodeID] = []
        for node in deadlines.takeDue(atOrBefore: now) where engine.state.nodes[node]?.alive == true {
            let due = livenessDeadline(of: node, in: work)
            if due <= now { silent.append(node) } else { deadlines.schedule(node, due: due) }
        }
        leaderWork?.deadlines = deadlines
        return silent.sorted()
    }

    /// A node that registers is watched from now on (K1), at its deadline.
    mutating func watchLiveness(of node: NodeID) {
        guard leaderWork?.deadlines != nil, let due = leaderWork.map({ livenessDeadline(of: node, in: $0) }) else { return }
        leaderWork?.deadlines?.schedule(node, due: due)
        let check = leaderWork?.livenessCheckDue ?? due
        leaderWork?.livenessCheckDue = min(check, due)
    }

    /// How long each tracked node has been silent, in node id order (for status displays; none
    /// unless leading).
    public func silence(at now: Int64) -> [(node: NodeID, milliseconds: Int64)] {
        guard let work = leaderWork else { return [] }
        let tracked = Set(work.lastSeen.keys).union(engine.state.nodes.filter { $0.value.alive }.keys)
        return tracked.sorted().map { ($0, now - work.heard($0)) }
    }

    /// When the next liveness check could declare someone dead (nil unless leading).
    public func nextLivenessDeadline() -> Int64? {
        guard let work = leaderWork else { return nil }
        var earliest: Int64?
        for (id, record) in engine.state.nodes where record.alive {
            let due = livenessDeadline(of: id, in: work)
            earliest = min(earliest ?? due, due)
        }
        return earliest
    }
}

extension CoordinatorCore {
    /// Refills the retry window with a command applied before the newest snapshot (K5 across restarts).
    public mutating func rememberApplied(sequence: UInt64, node: String, requestID: UInt64, at time: Instant) {
        lastEngineTime = max(lastEngineTime, time.milliseconds)
        retries.remember(.accepted(sequence: sequence, events: []), for: .init(node: node, requestID: requestID))
    }
}
