public import CamsyncPolicy
public import CamsyncWire

/// Time: every deadline of the coordinator is here (liveness K1, the engine's own deadlines such as
/// P6's PiP restore, heartbeats on PUB, route drops, the stats line, and in HA the lease's validity
/// and the next read of the log). The shell asks `nextDeadline`, sleeps until then or until
/// traffic, and calls `tick` with the time it read.
extension CoordinatorCore {

    /// How soon a liveness check that could not judge up to the clock (frames waited) looks again.
    static let catchingUpRecheck: Int64 = 5

    /// How often the counters are logged.
    static let statsInterval: Int64 = 60_000

    /// When (monotonic ms) `tick` next has something to do; at the latest one heartbeat interval ahead.
    public func nextDeadline(at time: CoordinatorTime) -> Int64 {
        let now = time.monotonicMilliseconds
        var deadline = min(now + settings.heartbeatIntervalMilliseconds, nextStatsLog)
        if let due = routeDrops.map(\.due).min() { deadline = min(deadline, due) }
        if case .highAvailability(let state) = mode {
            if case .leading(let leadership, let lastPulse) = state.phase {
                if let lease = state.lease, lease.id == leadership.lease { deadline = min(deadline, lease.validUntil) }
                if let pulse = settings.highAvailability?.pulseMilliseconds { deadline = min(deadline, lastPulse + pulse) }
            }
            if let suspicion = suspicionDeadline() { deadline = min(deadline, suspicion) }
            if let due = state.readDue { deadline = min(deadline, due) }
        }
        if let work = leaderWork {
            if !work.snapshotBacklog.isEmpty { deadline = now }   // the next turn serves the backlog's next share
            deadline = min(deadline, heartbeatSlots.nextDue(interval: settings.heartbeatIntervalMilliseconds) ?? now)
            if work.deadlines == nil { deadline = now }   // the next turn makes them
            if let liveness = work.livenessCheckDue { deadline = min(deadline, liveness) }
            if let (due, _) = engine.nextDeadline() {
                deadline = min(deadline, now + max(0, due.milliseconds - time.wallMilliseconds))
            }
        }
        return max(deadline, now)
    }

    /// Whatever is due at `time`: in HA the lease check and the next read of the log; route drops;
    /// the stats line; and when leading, silent nodes declared dead, the engine's due deadlines and
    /// a heartbeat. Replies and publications join the turn.
    public mutating func tick(at time: CoordinatorTime) -> [CoordinatorAction] {
        let now = time.monotonicMilliseconds
        var actions = checkLease(at: time) + advance(at: time) + suspectLeader(at: time)
        if routeDrops.contains(where: { $0.due <= now }) {
            actions += routeDrops.filter { $0.due <= now }.map { .dropConnection($0.connection) }
            routeDrops.removeAll { $0.due <= now }
        }
        if now >= nextStatsLog {
            actions.append(.log(.init(.info, "coordinator stats", statsMetadata)))
            nextStatsLog = now + Self.statsInterval
        }
        // Only a leader decides: no liveness, no engine deadlines, no heartbeats otherwise (SPEC K6).
        if leaderWork != nil { actions += leaderTimers(at: time) }
        return gather(counted(actions))
    }

    private mutating func leaderTimers(at time: CoordinatorTime) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        let now = time.monotonicMilliseconds
        if leaderWork?.deadlines == nil || leaderWork?.livenessCheckDue.map({ now >= $0 }) == true {
            // Judged up to the last instant everything waiting had been taken (K7): behind that, a
            // node's heartbeat may wait unread. Looked at again shortly while the leader catches up.
            let heard = settings.plantedBug == .judgeSilenceAtClock ? now : min(now, leaderWork?.heardAllAt ?? now)
            for node in takeSilentNodes(at: heard) {
                actions += apply(.declareNodeDead(node), from: Envelope.coordinatorSender, requestID: sequence + 1, isAdmin: true,
                                 replyTo: nil, at: time)
            }
            let due = leaderWork?.deadlines?.earliest.map { max($0, heard < now ? now + Self.catchingUpRecheck : $0) }
            leaderWork?.livenessCheckDue = due
        }
        while let (due, command) = engine.nextDeadline(), due.milliseconds <= time.wallMilliseconds {
            let before = sequence
            actions += apply(command, from: Envelope.coordinatorSender, requestID: sequence + 1, isAdmin: true, replyTo: nil, at: time)
            if sequence == before { break }
        }
        actions += heartbeats(at: time)
        return actions + pulse(at: time)
    }

    /// The heartbeats due at `time` (`HeartbeatSlots`): once an interval on the event socket for its
    /// observers, and to each node at its slot on its own connection, followed by its group's
    /// bookmark when one is due in this interval (`BookmarkSchedule`).
    private mutating func heartbeats(at time: CoordinatorTime) -> [CoordinatorAction] {
        let everyone = state.nodes
        let (begins, nodes) = heartbeatSlots.take(at: time.monotonicMilliseconds, interval: settings.heartbeatIntervalMilliseconds,
                                                  salt: term) { Array(everyone.keys) }
        var actions: [CoordinatorAction] = []
        if begins {
            actions.append(.publish(topic: EventTopic.heartbeat, Publication(heartbeatEnvelope(at: time))))
            dueBookmarks = groupBookmarks()
        }
        guard !nodes.isEmpty else { return actions }
        let heartbeat = Publication(heartbeatEnvelope(at: time))
        for node in nodes where isReachable(node, at: time.monotonicMilliseconds) {
            let route = Self.route(node)
            actions.append(.push(routingID: route, topic: EventTopic.heartbeat, heartbeat))
            if let bookmark = dueBookmarks[state.group(of: node)] {
                actions.append(.push(routingID: route, topic: EventTopic.node(node), bookmark))
            }
        }
        return actions
    }

    /// The leader's heartbeat (and pulse): its term, the last sequence it published, the liveness
    /// settings, and in HA its own address.
    func heartbeatEnvelope(at time: CoordinatorTime, lastSequence: UInt64? = nil) -> Envelope {
        var heartbeat = Envelope.coordinatorHeartbeat(term: term, lastSequence: lastSequence ?? sequence,
                                                      time: Instant(milliseconds: time.wallMilliseconds))
        if case .coordinatorHeartbeat(var body)? = heartbeat.body {
            body.heartbeatIntervalMs = livenessSettings.heartbeatIntervalMs
            body.liveness = livenessSettings.liveness
            if var address = highAvailability?.address {
                address.term = term
                body.coordinator = address
            }
            heartbeat.body = .coordinatorHeartbeat(body)
        }
        return heartbeat
    }

    /// The counters, for log lines.
    public var statsMetadata: [String: String] {
        ["sequence": "\(sequence)", "term": "\(term)", "role": "\(role)", "accepted": "\(counters.commandsAccepted)",
         "refused": "\(counters.commandsRefused)", "retries": "\(counters.retriesAnswered)",
         "badFrames": "\(counters.badFrames)", "declaredDead": "\(counters.nodesDeclaredDead)"]
    }
}
