public import CamsyncPolicy
public import CamsyncWire

/// Deadlines: liveness (K1), the engine's own deadlines (P6 PiP restore), heartbeats on PUB; and the
/// end of a turn (snapshots, K3).
extension CoordinatorCore {

    /// When (monotonic ms) `tick` next has something to do.
    public func nextDeadline(at time: CoordinatorTime) -> Int64 {
        guard role == .leader else { return time.monotonicMilliseconds + settings.heartbeatIntervalMilliseconds }
        var deadline = nextHeartbeat
        if let liveness = nextLivenessDeadline(graceStart: graceStart) { deadline = min(deadline, liveness) }
        if let (due, _) = engine.nextDeadline() {
            deadline = min(deadline, time.monotonicMilliseconds + max(0, due.milliseconds - time.wallMilliseconds))
        }
        return deadline
    }

    /// Declares silent nodes dead, runs the engine's due deadlines, and publishes a heartbeat when one is due.
    public mutating func tick(at time: CoordinatorTime) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        // A standby decides nothing: no liveness, no engine deadlines, no heartbeats (SPEC K6).
        guard role == .leader else { return [] }
        for node in silentNodes(at: time.monotonicMilliseconds, graceStart: graceStart) {
            actions += apply(.declareNodeDead(node), from: Envelope.coordinatorSender, requestID: sequence + 1, isAdmin: true,
                             replyTo: nil, at: time)
        }
        while let (due, command) = engine.nextDeadline(), due.milliseconds <= time.wallMilliseconds {
            let before = sequence
            actions += apply(command, from: Envelope.coordinatorSender, requestID: sequence + 1, isAdmin: true, replyTo: nil, at: time)
            if sequence == before { break }
        }
        if time.monotonicMilliseconds >= nextHeartbeat {
            nextHeartbeat = time.monotonicMilliseconds + settings.heartbeatIntervalMilliseconds
            var heartbeat = Envelope.coordinatorHeartbeat(term: term, lastSequence: sequence,
                                                          time: Instant(milliseconds: time.wallMilliseconds))
            if case .coordinatorHeartbeat(var body)? = heartbeat.body {
                body.heartbeatIntervalMs = livenessSettings.heartbeatIntervalMs
                body.liveness = livenessSettings.liveness
                if var address {
                    address.term = term
                    body.coordinator = address
                }
                heartbeat.body = .coordinatorHeartbeat(body)
            }
            actions.append(.publish(topic: EventTopic.heartbeat, heartbeat))
        }
        return counted(actions)
    }

    /// The shell made this turn's appends (`entries` of them) durable: everything up to `sequence` may now
    /// be acknowledged, published and replayed. Returns a snapshot to write when one is due (K3).
    public mutating func turnCommitted(entries: Int) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        if entries > 0 { actions.append(.count(.groupCommit(size: entries))) }
        committedSequence = sequence
        if settings.durability != .off, sequence >= lastSnapshotSequence + settings.snapshotEvery {
            actions.append(.writeSnapshot(JournalSnapshot(sequence: sequence, term: term, state: WireCodec.encode(state)),
                                          keepingCommands: UInt64(settings.retryWindow)))
            lastSnapshotSequence = sequence
        }
        return counted(actions)
    }
}
