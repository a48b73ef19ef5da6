import CamsyncRuntime
public import CamsyncEtcdModel
public import CamsyncPolicy
public import CamsyncWire

/// HA leadership as a state machine (SPEC K6, K7; `CoordinatorRole` draws it). Events come from the
/// `LeadershipSupervisor` (etcd's news, through `observe`), from the shell's reads of the log
/// (`rebuilt`, `logRead`, `storeFailed`) and from time (`tick`); the answers are actions: read the
/// log, resign, lead. Every decision about leading is here; the shell only carries it out.
extension CoordinatorCore {

    /// etcd's news. A no-op for an embedded coordinator.
    public mutating func observe(_ event: LeadershipEvent, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability else { return [] }
        var actions: [CoordinatorAction] = []
        switch event {
        case .won(let leadership):
            actions += takeWin(leadership)
        case .leaderObserved(let leader, let lease):
            // etcd answered: whatever trouble there was is over.
            ha.trouble = nil
            let other = leader?.name == ha.address.name ? nil : leader
            actions += observeLeader(other, lease: lease)
            if let other, let mine = role.leadership, Int64(other.term) > mine.term {
                actions += stepDown("etcd shows \(other.name) leading in term \(other.term)", resign: true)
            }
        case .leaseRenewed(let lease, let validUntil):
            ha.lease = LeaseValidity(id: lease, validUntil: validUntil)
        case .leaseLost(let reason):
            switch ha.phase {
            case .rebuilding(let read, _): ha.phase = .rebuilding(read: read, win: nil)
            case .standby(_, let due): ha.phase = .standby(win: nil, readDue: due)
            case .leading where settings.plantedBug == .ignoreLease: break
            case .catchingUp, .leading: actions += stepDown("lease lost: \(reason)", resign: false)
            }
        case .logTurn(let turn):
            actions += followLog(turn)
        case .storeTrouble(let reason):
            ha.trouble = reason
        }
        return gather(counted(actions + advance(at: time)))
    }

    /// A win etcd reported: kept until the core is ready for it (rebuilt, no read under way), unless
    /// it is stale (at or below a term this coordinator gave up, or not newer than the one it holds).
    private mutating func takeWin(_ leadership: EtcdLeadership) -> [CoordinatorAction] {
        if leadership == role.leadership || leadership == ha.phase.pendingWin {
            return []   // the same win reported twice (the campaign's answer and the observed leader)
        }
        if leadership.term <= ha.resignedTerm || role.leadership.map({ $0.term >= leadership.term }) == true {
            return [.log(.init(.info, "a stale win ignored", [
                "term": "\(leadership.term)", "resignedTerm": "\(ha.resignedTerm)"]))]
        }
        switch ha.phase {
        case .rebuilding(let read, _): ha.phase = .rebuilding(read: read, win: leadership)
        case .standby(_, let due): ha.phase = .standby(win: leadership, readDue: due)
        case .catchingUp(let held, _), .leading(let held, _):
            // etcd keeps one leader key per candidate: a newer win while holding one means the old
            // key is gone, which the lease's loss or the observed leader reports; that steps down.
            return [.log(.init(.warning, "a win in a newer term while holding one: ignored until etcd reports the old one gone", [
                "term": "\(leadership.term)", "held": "\(held.term)"]))]
        }
        return []
    }

    /// The shell read etcd's newest snapshot and the log after it (`rebuildFromLog`): the core
    /// becomes exactly that state, as a standby.
    public mutating func rebuilt(snapshot: JournalSnapshot?, batches: [LoggedBatch],
                                 at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability else { return [] }
        guard case .rebuilding(.underWay, let win) = ha.phase else { return answerOfAnotherPhase("a rebuild") }
        let fresh: CoordinatorCore
        let replayed: Int
        do {
            let lastTerm = max(snapshot?.term ?? 0, batches.last?.batch.term ?? 0)
            (fresh, replayed) = try CoordinatorRecovery.rebuild(settings: settings, term: max(term, lastTerm),
                                                                snapshot: snapshot, batches: batches)
        } catch {
            return storeFailed(StoreFailure(.unavailable, "the log on etcd does not replay: \(error)"), at: time)
        }
        takeReplica(of: fresh)
        recentBatches = fresh.recentBatches
        ha.phase = .standby(win: win, readDue: 0)
        ha.retryDelay = HighAvailability.firstRetryDelay
        let actions: [CoordinatorAction] = [.log(.init(.info, "state rebuilt from etcd", [
            "snapshot": "\(snapshot?.sequence ?? 0)", "replayed": "\(replayed)", "sequence": "\(sequence)"]))]
        return gather(counted(actions + advance(at: time)))
    }

    /// The shell read the log after this core's sequence (`readLog`) while it catches up with a win:
    /// once all of it is applied, it leads. The previous leader cannot write any more: its key is
    /// gone, and its writes were conditional on it.
    public mutating func logRead(_ batches: [LoggedBatch], at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability else { return [] }
        guard case .catchingUp(let leadership, .underWay) = ha.phase else { return answerOfAnotherPhase("a catch-up read") }
        ha.phase = .catchingUp(leadership, read: .due(at: 0))   // answered
        var actions: [CoordinatorAction] = []
        for logged in batches {
            guard follow(logged) == .applied else {
                actions.append(.log(.init(.info, "catching up: the log does not continue this state; rebuilding",
                                          ["sequence": "\(sequence)", "entry": "\(logged.batch.sequence)"])))
                ha.phase = .rebuilding(read: .due(at: 0), win: leadership)
                return gather(counted(actions + advance(at: time)))
            }
        }
        guard ha.leaseLives(leadership, at: time.monotonicMilliseconds) else {
            actions += stepDown("the etcd lease was not renewed within its TTL while catching up", resign: true)
            return gather(counted(actions + advance(at: time)))
        }
        actions += lead(leadership, at: time)
        return gather(counted(actions))
    }

    /// A read of the log failed: say why in NOT_LEADER errors, and try again after a pause that
    /// doubles up to 2 s (a coordinator cut off from etcd keeps answering between attempts).
    public mutating func storeFailed(_ failure: StoreFailure, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability else { return [] }
        ha.trouble = failure.description
        let due = time.monotonicMilliseconds + ha.retryDelay
        ha.retryDelay = min(ha.retryDelay * 2, HighAvailability.longestRetryDelay)
        switch ha.phase {
        case .rebuilding(_, let win): ha.phase = .rebuilding(read: .due(at: due), win: win)
        case .standby(let win, _): ha.phase = .standby(win: win, readDue: due)
        case .catchingUp(let leadership, _): ha.phase = .standby(win: leadership, readDue: due)
        case .leading: break
        }
        return counted([.log(.init(.warning, "etcd: could not read the log", ["error": failure.description]))])
    }

    /// The answer to a read asked in a phase the core has left (a step-down or a gap while it was
    /// out: reads are answered later, in both worlds, while the loop goes on). At most one read is
    /// out at a time, so this is the one the phase waits for: its own read may start now.
    private mutating func answerOfAnotherPhase(_ what: String) -> [CoordinatorAction] {
        switch ha.phase {
        case .rebuilding(.underWay, let win): ha.phase = .rebuilding(read: .due(at: 0), win: win)
        case .catchingUp(let leadership, .underWay): ha.phase = .catchingUp(leadership, read: .due(at: 0))
        default: break
        }
        return [.log(.init(.info, "\(what) answered after its phase ended: ignored", ["role": role.description]))]
    }

    // MARK: Transitions

    /// Starts the next read the phase needs, unless one is under way or a retry is not due yet.
    mutating func advance(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability, let due = ha.readDue, time.monotonicMilliseconds >= due else { return [] }
        switch ha.phase {
        case .rebuilding(_, let win):
            ha.phase = .rebuilding(read: .underWay, win: win)
            return [.rebuildFromLog]
        case .standby(let win?, _):
            if settings.plantedBug == .leadWithoutCatchingUp { return lead(win, at: time) }
            ha.phase = .catchingUp(win, read: .underWay)
            return [.readLog(after: sequence)]
        case .catchingUp(let leadership, _):
            ha.phase = .catchingUp(leadership, read: .underWay)
            return [.readLog(after: sequence)]
        case .standby(nil, _), .leading:
            cannotHappen("a read of the log")
        }
    }

    /// Leads in `leadership.term`: sequences continue, heartbeats name this coordinator at the next
    /// `tick`, and every node's silence counts from now (K7).
    private mutating func lead(_ leadership: EtcdLeadership, at time: CoordinatorTime) -> [CoordinatorAction] {
        term = UInt64(leadership.term)
        ha.phase = .leading(leadership, lastPulse: time.monotonicMilliseconds)
        ha.trouble = nil
        let republished = republish()
        let listening = observeLeader(nil, lease: 0)
        heartbeatSlots.reset()
        beginServing(at: time)
        leaderWork = LeaderWork(startingAt: time.monotonicMilliseconds)
        // The planted bug keeps the clocks of this core's last leadership: silence that straddles the change counts (K7).
        if settings.plantedBug == .skipLivenessReset { leaderWork?.lastSeen = plantedBugClocks }
        return [.count(.role(leading: true, term: term)),
                .log(.init(.info, "leading", ["term": "\(term)", "sequence": "\(sequence)"]))]
            + listening + republished
    }

    /// Stops deciding at once. The engine may hold commands of a turn that was never made durable,
    /// so the state is read from etcd again before anything else. `resign`: give the leadership up
    /// on etcd (not needed when etcd already took it). Only a coordinator that holds a leadership
    /// (catching up or leading) steps down.
    mutating func stepDown(_ reason: String, resign: Bool) -> [CoordinatorAction] {
        let leadership: EtcdLeadership
        let read: HighAvailability.LogRead
        switch ha.phase {
        case .catchingUp(let held, let heldRead): (leadership, read) = (held, heldRead)
        case .leading(let held, _): (leadership, read) = (held, .due(at: 0))
        case .rebuilding, .standby: cannotHappen("a step-down without a leadership held")
        }
        var actions: [CoordinatorAction] = [.log(.init(.warning, "stepping down", [
            "term": "\(term)", "sequence": "\(sequence)", "why": reason]))]
        actions += abandonTurns("not acknowledged: this coordinator stepped down (\(reason))")
        if settings.plantedBug == .skipLivenessReset { plantedBugClocks = leaderWork?.lastSeen ?? [:] }
        leaderWork = nil   // the snapshot requests waiting go too: their nodes ask again, and are told who leads
        let wasLeading = role.isLeading
        // A catch-up read still out is answered later (`answerOfAnotherPhase`); the rebuild waits for it.
        ha.phase = .rebuilding(read: read, win: nil)
        ha.resignedTerm = max(ha.resignedTerm, leadership.term)
        if resign { actions.append(.resign(leadership)) }
        if wasLeading { actions.append(.count(.role(leading: false, term: term))) }
        return actions
    }

    /// A leader whose lease is not known to live any more stops at once: that covers a leader that
    /// was paused (SIGSTOP, a long stall) past its TTL. It cannot have acknowledged anything since,
    /// and must not publish.
    mutating func checkLease(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard case .highAvailability(let state) = mode, case .leading(let leadership, _) = state.phase else { return [] }
        guard state.leaseLives(leadership, at: time.monotonicMilliseconds) || settings.plantedBug == .ignoreLease else {
            return stepDown("the etcd lease was not renewed within its TTL", resign: true)
        }
        return checkPause(at: time)
    }

    /// A standby applies the leader's log as the watch delivers it; a gap or a batch that does not
    /// apply sends it back to etcd for the whole state.
    private mutating func followLog(_ turn: [LoggedBatch]) -> [CoordinatorAction] {
        // What the rebuild keeps: the win, and a read still out (at most one is: its answer ends it).
        let win: EtcdLeadership?
        let read: HighAvailability.LogRead
        switch ha.phase {
        case .standby(let pending, let due): (win, read) = (pending, .due(at: due))
        case .catchingUp(let leadership, let out): (win, read) = (leadership, out == .underWay ? .underWay : .due(at: 0))
        case .rebuilding, .leading: return []
        }
        for logged in turn {
            let outcome = follow(logged)
            if outcome == .gap || outcome == .diverged {
                ha.phase = .rebuilding(read: read, win: win)
                return [.log(.init(.info, "following the log: \(outcome); rebuilding from etcd",
                                   ["sequence": "\(sequence)", "batch": "\(logged.batch.sequence)"]))]
            }
        }
        return []
    }

    /// Takes `other`'s replica (engine, sequences, retry window), keeping this core's role, HA
    /// knowledge, counters and timers.
    private mutating func takeReplica(of other: CoordinatorCore) {
        engine = other.engine
        snapshotCache = nil
        sequence = other.sequence
        groupSequences = other.groupSequences
        term = other.term
        committedSequence = other.committedSequence
        lastSnapshotSequence = other.lastSnapshotSequence
        lastEngineTime = max(lastEngineTime, other.lastEngineTime)
        if settings.plantedBug != .forgetRetryWindowOnFailover { retries = other.retries }
        claims = other.claims
    }
}
