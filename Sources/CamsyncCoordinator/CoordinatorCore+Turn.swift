public import CamsyncEtcd
public import CamsyncPolicy
public import CamsyncWire

/// A turn being gathered: the accepted commands to make durable in one group commit, and the
/// replies and publications that may leave only once they are (the write-ahead contract).
struct Turn: Sendable {
    var entries: [JournalEntry] = []
    var replies: [(routingID: [UInt8], envelope: Envelope)] = []
    var publications: [(topic: String, envelope: Envelope)] = []
    /// The `commit` action was returned; its outcome is awaited.
    var committing = false

    var isEmpty: Bool { entries.isEmpty && replies.isEmpty && publications.isEmpty }
}

/// A connection refused for holding another node's route, dropped at `due` (monotonic ms).
struct RouteDrop: Sendable {
    var connection: ConnectionHandle
    var due: Int64
}

/// The turn (docs/DEVELOPING.md "The turn"): frames and timers gather work; `endTurn` asks the shell
/// to commit what was accepted; `turnCommitted` releases replies, then publications, then maybe a
/// snapshot (K3); `turnFailed` answers every request of the turn NOT_LEADER (HA) or stops (embedded).
extension CoordinatorCore {

    /// Moves the replies and publications of `actions` (already `counted`) into the turn; returns the rest.
    mutating func gather(_ actions: [CoordinatorAction]) -> [CoordinatorAction] {
        var rest: [CoordinatorAction] = []
        for action in actions {
            switch action {
            case .reply(let routingID, let envelope): turn.replies.append((routingID, envelope))
            case .publish(let topic, let envelope): turn.publications.append((topic, envelope))
            default: rest.append(action)
            }
        }
        return rest
    }

    /// The turn ends (the shell has handed over the frames at hand and run the timers): a `commit`
    /// of its accepted commands, or, when it has none, its replies and publications at once.
    public mutating func endTurn(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard !turn.committing else { return [] }
        if turn.entries.isEmpty { return release() }
        var actions = checkLease(at: time)
        guard role.isLeading else {
            return counted(actions + failTurn(StoreFailure(.notLeader, "this coordinator stopped leading during the turn")))
        }
        turn.committing = true
        if settings.plantedBug == .acknowledgeBeforeDurable { actions += release() }
        actions.append(.commit(turn.entries, ifLeading: role.leadership))
        return counted(actions)
    }

    /// The shell made the turn's `commit` durable: everything up to `sequence` may now be
    /// acknowledged, published and replayed. Replies, then publications, then a snapshot when due.
    public mutating func turnCommitted(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard turn.committing else { return [] }
        let size = turn.entries.count
        turn.entries.removeAll(keepingCapacity: true)
        turn.committing = false
        guard role.isLeading else {
            // Durable, but this coordinator no longer leads: it neither acknowledges nor publishes.
            // The requests are retried with the same ids at the leader, whose retry window holds them (K5).
            return counted(failTurn(StoreFailure(.notLeader, "this coordinator stopped leading while the turn was committed")))
        }
        committedSequence = sequence
        var actions: [CoordinatorAction] = [.count(.groupCommit(size: size))]
        actions += release()
        if settings.durability != .off, sequence >= lastSnapshotSequence + settings.snapshotEvery {
            actions.append(.writeSnapshot(JournalSnapshot(sequence: sequence, term: term, state: WireCodec.encode(state)),
                                          keepingCommands: UInt64(settings.retryWindow), ifLeading: role.leadership))
            lastSnapshotSequence = sequence
        }
        return counted(actions)
    }

    /// The log did not take the turn: nothing of it is acknowledged or published. In HA every request
    /// of the turn gets NOT_LEADER saying why (the client retries with the same id, K5; if the write
    /// did land after all, the next leader's retry window answers with the ack), and this coordinator
    /// steps down: its engine holds commands the log may not. Embedded, the journal failing is fatal.
    public mutating func turnFailed(_ failure: StoreFailure, at time: CoordinatorTime) -> [CoordinatorAction] {
        counted(failTurn(failure))
    }

    private mutating func failTurn(_ failure: StoreFailure) -> [CoordinatorAction] {
        guard ha != nil else {
            turn = Turn()
            return [.log(.init(.error, "journal write failed: stopping", ["error": failure.description])),
                    .stop(reason: "journal write failed: \(failure)")]
        }
        let why = "the command log on etcd did not take this turn (\(failure)): not acknowledged"
        var actions = abandonTurn(why)
        if role.leadership != nil { actions += stepDown(why, resign: true) }
        return actions
    }

    /// A snapshot write failed. A snapshot is an optimisation in HA: only a lost leadership matters.
    public mutating func snapshotFailed(_ failure: StoreFailure, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard ha != nil else {
            return [.log(.init(.error, "snapshot write failed: stopping", ["error": failure.description])),
                    .stop(reason: "snapshot write failed: \(failure)")]
        }
        var actions: [CoordinatorAction] = [.log(.init(.warning, "snapshot not written to etcd", ["error": failure.description]))]
        if failure.kind == .notLeader, role.leadership != nil { actions += stepDown("\(failure)", resign: true) }
        return counted(actions)
    }

    /// Every reply of the gathered turn becomes NOT_LEADER with `why`; its appends and publications go.
    mutating func abandonTurn(_ why: String) -> [CoordinatorAction] {
        let replies = turn.replies
        turn = Turn()
        return replies.flatMap { identity, envelope -> [CoordinatorAction] in
            [.count(.refused(.notLeader)),
             .reply(routingID: identity, .error(Camsync_V1_Error(code: .notLeader, message: Self.bounded(why)),
                                                requestID: envelope.requestID, term: term))]
        }
    }

    /// The turn's replies, then its publications.
    private mutating func release() -> [CoordinatorAction] {
        guard !turn.isEmpty else { return [] }
        let actions = turn.replies.map { CoordinatorAction.reply(routingID: $0.routingID, $0.envelope) }
            + turn.publications.map { CoordinatorAction.publish(topic: $0.topic, $0.envelope) }
        turn.replies.removeAll(keepingCapacity: true)
        turn.publications.removeAll(keepingCapacity: true)
        return actions
    }

    /// Whether the shell should hand over another frame in this turn: up to `batchLimit`, or what
    /// arrives within 20 ms of the turn's first frame, so that a turn (and the replies waiting for
    /// its group commit) stays short whatever the frames are.
    public func turnTakesMore(received: Int, since start: Int64, at now: Int64) -> Bool {
        received < settings.batchLimit && now - start <= Self.turnMilliseconds
    }

    static let turnMilliseconds: Int64 = 20

    /// Runs `body` (frames, timers) as one whole turn against a log that takes every commit: what the
    /// embedded shell does when its journal is healthy. The actions in the order a shell meets them.
    public mutating func runTurn(at time: CoordinatorTime,
                                 _ body: (inout CoordinatorCore) -> [CoordinatorAction]) -> [CoordinatorAction] {
        var actions = body(&self)
        let end = endTurn(at: time)
        actions += end
        if end.contains(where: { if case .commit = $0 { true } else { false } }) {
            actions += turnCommitted(at: time)
        }
        return actions
    }
}
