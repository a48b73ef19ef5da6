import CamsyncRuntime
public import CamsyncEtcdModel
public import CamsyncPolicy
public import CamsyncWire

/// A turn being gathered: the accepted commands to make durable in one group commit, and the
/// replies and publications that may leave only once they are (the write-ahead contract).
struct Turn: Sendable {
    /// The accepted commands, with their batches as the engine produced them (encoded once committed).
    var accepted: [Camsync_V1_EventBatch] = []
    var replies: [(routingID: [UInt8], reply: TurnReply)] = []
    /// For the event socket (`routingID` nil) or pushed to one node's connection on the command socket.
    var publications: [(routingID: [UInt8]?, topic: String, publication: Publication)] = []
    /// New registrations admitted in the turn (`CoordinatorSettings.registrationsPerTurn`).
    var registrations = 0
    /// Snapshot requests of the turn: answered at its end with the state as it is then.
    var snapshotRequests: [(routingID: [UInt8], requestID: UInt64, group: NodeID?)] = []

    var isEmpty: Bool { accepted.isEmpty && replies.isEmpty && publications.isEmpty && snapshotRequests.isEmpty }
}

extension CoordinatorCore {
    /// The leader's working set, on the paths only a leader takes (each checks that it leads, or
    /// found a turn of its own, first): reaching one without it is a bug, and stops the coordinator.
    var work: LeaderWork {
        get {
            guard let leaderWork else { cannotHappen("reading a leader's work while not leading") }
            return leaderWork
        }
        _modify {
            guard leaderWork != nil else { cannotHappen("changing a leader's work while not leading") }
            yield &leaderWork!
        }
    }
}

/// A turn handed to the log and not released yet (the pipeline, oldest first).
struct TurnInFlight: Sendable {
    var commit: TurnCommit
    var turn: Turn
    /// The log took it; it is released once every earlier turn is released too.
    var durable = false
    /// How many times it was sent (again after `outOfOrder`).
    var attempts = 1
    /// Refused as out of order: sent again once the turn before it is durable.
    var waitingToResend = false
}

/// A connection refused for holding another node's route, dropped at `due` (monotonic ms).
struct RouteDrop: Sendable {
    var connection: ConnectionHandle
    var due: Int64
    /// The key caught: a frame on the same descriptor under another key means the descriptor now
    /// belongs to a new connection (the caught one closed, its number reused), which is not dropped.
    var key: String?
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
            case .reply(let routingID, let envelope): turn.replies.append((routingID, .envelope(envelope)))
            case .answer(let routingID, let requestID, let shared): turn.replies.append((routingID, .shared(shared, requestID: requestID)))
            case .publish(let topic, let publication): turn.publications.append((nil, topic, publication))
            case .push(let routingID, let topic, let publication): turn.publications.append((routingID, topic, publication))
            default: rest.append(action)
            }
        }
        return rest
    }

    /// The turn ends (the shell has handed over the frames at hand and run the timers). With commands
    /// accepted, and room in the pipeline, a `commit` (not awaited: the next turn gathers meanwhile);
    /// with none, its replies and publications leave with the last turn in flight, or at once when
    /// none is (they may speak of state that is not durable yet: they wait for it, in order).
    public mutating func endTurn(at time: CoordinatorTime) -> [CoordinatorAction] {
        answerSnapshotRequests(at: time) + commitTurn(at: time)
    }

    private mutating func commitTurn(at time: CoordinatorTime) -> [CoordinatorAction] {
        if turn.accepted.isEmpty {
            guard let last = leaderWork?.inFlight.indices.last else { return release(&turn) }
            work.inFlight[last].turn.replies += turn.replies
            work.inFlight[last].turn.publications += turn.publications
            turn = Turn()
            return []
        }
        guard (leaderWork?.inFlight.count ?? 0) < settings.commitsInFlight else { return [] }
        var actions = checkLease(at: time)
        guard leaderWork != nil else {
            return counted(actions + failTurns(StoreFailure(.notLeader, "this coordinator stopped leading during the turn")))
        }
        let entries = TurnEntries(turn.accepted)
        turn.publications = turn.publications.map { ($0.routingID, $0.topic, $0.publication.attached(to: entries)) }
        let commit = TurnCommit(id: nextCommitID, turnEntries: entries, leadership: role.leadership,
                                follows: work.inFlight.last?.commit.lastSequence)
        nextCommitID += 1
        var submitted = TurnInFlight(commit: commit, turn: turn)
        turn = Turn()
        if settings.plantedBug == .acknowledgeBeforeDurable { actions += release(&submitted.turn) }
        work.inFlight.append(submitted)
        actions.append(.commit(commit))
        // An HA leader's first interval is its nodes' and clients' (every node hears it, every client
        // comes to it): a snapshot due then waits for the interval's end. A standby does not know the
        // snapshots its leader wrote, so one is often due at once, and encoding the whole state and
        // writing it to etcd delayed the first acks and heartbeats of a failover with a fleet. (A
        // single coordinator knows its journal's last snapshot.)
        let settled = !isHighAvailability || time.monotonicMilliseconds - work.began >= settings.heartbeatIntervalMilliseconds
        if settings.durability != .off, settled, sequence >= lastSnapshotSequence + settings.snapshotEvery {
            // The state is the log through `sequence` (every accepted command is in a turn in flight):
            // the snapshot is written after that turn, or refused by etcd until it is in the log.
            actions.append(.writeSnapshot(JournalSnapshot(sequence: sequence, term: term, of: state, groupSequences: groupSequences),
                                          keepingCommands: UInt64(settings.retryWindow), ifLeading: role.leadership))
            lastSnapshotSequence = sequence
        }
        return counted(actions)
    }

    /// The turn's snapshot requests (and the backlog's share) become its replies, encoded here, once
    /// for each group asked for and once for the whole state (each counted with its size): a reply
    /// released later is bytes to send, so that the release of a turn that waited for a slow commit,
    /// with the thousands of snapshots of a mass rejoin behind it, encodes nothing.
    private mutating func answerSnapshotRequests(at time: CoordinatorTime) -> [CoordinatorAction] {
        if let backlog = leaderWork?.snapshotBacklog, !backlog.isEmpty {
            let served = min(backlog.count, max(0, settings.snapshotsPerTurn - turn.snapshotRequests.count))
            turn.snapshotRequests.insert(contentsOf: backlog.prefix(served), at: 0)
            work.snapshotBacklog.removeFirst(served)
        }
        guard !turn.snapshotRequests.isEmpty else { return [] }
        var whole: Publication?
        var parts: [NodeID: Publication] = [:]
        var encoded: [CoordinatorAction] = []
        for (routingID, requestID, group) in turn.snapshotRequests {
            if let group {
                let part = parts[group] ?? Publication(groupSnapshotEnvelope(group, requestID: 0))
                if parts[group] == nil { encoded.append(.count(.snapshotEncoded(bytes: part.bytes.count))) }
                parts[group] = part
                turn.replies.append((routingID, .shared(part, requestID: requestID)))
                continue
            }
            if settings.plantedBug == .encodeEachSnapshot {
                turn.replies.append((routingID, .envelope(snapshotEnvelope(requestID: requestID, now: time.monotonicMilliseconds))))
                continue
            }
            let snapshot = whole ?? Publication(snapshotEnvelope(requestID: 0, now: time.monotonicMilliseconds))
            if whole == nil { encoded.append(.count(.snapshotEncoded(bytes: snapshot.bytes.count))) }
            whole = snapshot
            turn.replies.append((routingID, .shared(snapshot, requestID: requestID)))
        }
        turn.snapshotRequests.removeAll(keepingCapacity: true)
        return encoded
    }

    /// Whether the shell should read more frames now: not while the pipeline is full and the turn
    /// being gathered has reached `batchLimit` (the sockets' queues hold the rest: backpressure).
    public var takesFrames: Bool {
        (leaderWork?.inFlight.count ?? 0) < settings.commitsInFlight || turn.accepted.count < settings.batchLimit
    }

    /// Whether a commit is awaited.
    public var hasTurnsInFlight: Bool { !(leaderWork?.inFlight.isEmpty ?? true) }

    /// The log took commit `id`. Every turn up to the oldest one not taken yet is released, in order:
    /// replies, then publications; their batches may now be replayed.
    /// (An answer for a leadership that ended finds no turn: the step-down answered its requests.)
    public mutating func turnCommitted(_ id: UInt64, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard let index = leaderWork?.inFlight.firstIndex(where: { $0.commit.id == id }) else { return [] }
        work.inFlight[index].durable = true
        var actions: [CoordinatorAction] = []
        while let head = work.inFlight.first, head.durable {
            var released = work.inFlight.removeFirst()
            committedSequence = released.commit.lastSequence
            for entry in released.commit.entries { recentBatches.append(sequence: entry.sequence, encoded: entry.batch) }
            actions.append(.count(.groupCommit(size: released.commit.count)))
            actions += release(&released.turn)
        }
        return counted(actions + resendReady())
    }

    /// The turns refused as out of order whose predecessor is now durable, sent again (same id).
    private mutating func resendReady() -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        guard leaderWork != nil else { return [] }
        for index in work.inFlight.indices where work.inFlight[index].waitingToResend && (index == 0 || work.inFlight[index - 1].durable) {
            work.inFlight[index].waitingToResend = false
            work.inFlight[index].attempts += 1
            work.inFlight[index].commit.follows = index > 0 ? work.inFlight[index - 1].commit.lastSequence : nil
            actions += [.count(.commitResent), .commit(work.inFlight[index].commit)]
        }
        return actions
    }

    /// The log did not take commit `id`. Sent too early (`outOfOrder`: the turn before it was not in
    /// the log yet), it is sent again once that turn is durable (at once if it is). Otherwise nothing of it, nor of any later turn, is acknowledged
    /// or published: in HA every request of those turns gets NOT_LEADER saying why (the client retries
    /// with the same id, K5; if a write did land after all, the next leader's retry window answers
    /// with the ack), and this coordinator steps down: its engine holds commands the log may not.
    /// Embedded, the journal failing is fatal.
    public mutating func turnFailed(_ id: UInt64, _ failure: StoreFailure, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard let index = leaderWork?.inFlight.firstIndex(where: { $0.commit.id == id }) else { return [] }
        if failure.kind == .outOfOrder, work.inFlight[index].attempts < Self.mostAttempts {
            work.inFlight[index].waitingToResend = true
            return counted(resendReady())
        }
        return counted(failTurns(failure))
    }

    /// How many times a turn is sent before an `outOfOrder` refusal counts as a failure.
    static let mostAttempts = 16

    /// Fails every turn in flight and the one being gathered.
    private mutating func failTurns(_ failure: StoreFailure) -> [CoordinatorAction] {
        guard isHighAvailability else {
            leaderWork?.inFlight.removeAll()
            turn = Turn()
            return [.log(.init(.error, "journal write failed: stopping", ["error": failure.description])),
                    .stop(reason: "journal write failed: \(failure)")]
        }
        let why = "the command log on etcd did not take this turn (\(failure)): not acknowledged"
        var actions = abandonTurns(why)
        if role.leadership != nil { actions += stepDown(why, resign: true) }
        return actions
    }

    /// A snapshot write failed. A snapshot is an optimisation in HA: only a lost leadership matters
    /// (one refused for arriving before its turn is simply not written; the next one will be).
    public mutating func snapshotFailed(_ failure: StoreFailure, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability else {
            return [.log(.init(.error, "snapshot write failed: stopping", ["error": failure.description])),
                    .stop(reason: "snapshot write failed: \(failure)")]
        }
        var actions: [CoordinatorAction] = [.log(.init(.warning, "snapshot not written to etcd", ["error": failure.description]))]
        if failure.kind == .notLeader, role.leadership != nil { actions += stepDown("\(failure)", resign: true) }
        return counted(actions)
    }

    /// Every reply of the turns in flight and of the one gathered becomes NOT_LEADER with `why`;
    /// their publications go. Answers of the log for them arriving later are ignored.
    mutating func abandonTurns(_ why: String) -> [CoordinatorAction] {
        let replies = (leaderWork?.inFlight.flatMap(\.turn.replies) ?? []) + turn.replies
            + turn.snapshotRequests.map { routingID, requestID, _ in
                (routingID: routingID, reply: TurnReply.envelope(Envelope.snapshotRequest(sender: Envelope.coordinatorSender, requestID: requestID)))
            }
        leaderWork?.inFlight.removeAll()
        turn = Turn()
        return replies.flatMap { identity, reply -> [CoordinatorAction] in
            [.count(.refused(.notLeader)),
             .reply(routingID: identity, .error(Camsync_V1_Error(code: .notLeader, message: Self.bounded(why)),
                                                requestID: reply.requestID, term: term))]
        }
    }

    /// `turn`'s replies, then its publications (emptied).
    private func release(_ turn: inout Turn) -> [CoordinatorAction] {
        guard !turn.isEmpty else { return [] }
        let actions = turn.replies.map { $0.reply.action(to: $0.routingID) }
            + turn.publications.map { outgoing -> CoordinatorAction in
                guard let routingID = outgoing.routingID else { return .publish(topic: outgoing.topic, outgoing.publication) }
                return .push(routingID: routingID, topic: outgoing.topic, outgoing.publication)
            }
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

    /// Runs `body` (frames, timers) as one whole turn against a log that takes every commit at once:
    /// what the embedded shell comes to when its journal is healthy. The actions in the order a shell meets them.
    public mutating func runTurn(at time: CoordinatorTime,
                                 _ body: (inout CoordinatorCore) -> [CoordinatorAction]) -> [CoordinatorAction] {
        var actions = body(&self)
        let end = endTurn(at: time)
        actions += end
        for case .commit(let commit) in end { actions += turnCommitted(commit.id, at: time) }
        return actions
    }
}
