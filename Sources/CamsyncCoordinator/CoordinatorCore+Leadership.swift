public import CamsyncEtcd
public import CamsyncPolicy
public import CamsyncWire

/// HA leadership as a state machine (SPEC K6, K7; `CoordinatorRole` draws it). Events come from the
/// `LeadershipSupervisor` (etcd's news, through `observe`), from the shell's reads of the log
/// (`rebuilt`, `logRead`, `storeFailed`) and from time (`tick`); the answers are actions: read the
/// log, resign, lead. Every decision about leading is here; the shell only carries it out.
extension CoordinatorCore {

    /// etcd's news. A no-op for an embedded coordinator.
    public mutating func observe(_ event: LeadershipEvent, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard ha != nil else { return [] }
        var actions: [CoordinatorAction] = []
        switch event {
        case .won(let leadership):
            if leadership == role.leadership || leadership == ha!.pendingWin {
                break   // the same win reported twice (the campaign's answer and the observed leader)
            }
            if leadership.term <= ha!.resignedTerm || role.leadership.map({ $0.term >= leadership.term }) == true {
                actions.append(.log(.init(.info, "a stale win ignored", [
                    "term": "\(leadership.term)", "resignedTerm": "\(ha!.resignedTerm)"])))
            } else {
                ha!.pendingWin = leadership
            }
        case .leaderObserved(let leader, let lease):
            // etcd answered: whatever trouble there was is over.
            ha!.trouble = nil
            let other = leader?.name == ha!.address.name ? nil : leader
            actions += observeLeader(other, lease: lease)
            if let other, let mine = role.leadership, Int64(other.term) > mine.term {
                actions += stepDown("etcd shows \(other.name) leading in term \(other.term)", resign: true)
            }
        case .leaseRenewed(let lease, let validUntil):
            ha!.lease = LeaseValidity(id: lease, validUntil: validUntil)
        case .leaseLost(let reason):
            ha!.pendingWin = nil
            if role.leadership != nil { actions += stepDown("lease lost: \(reason)", resign: false) }
        case .logTurn(let turn):
            actions += followLog(turn)
        case .storeTrouble(let reason):
            ha!.trouble = reason
        }
        return gather(counted(actions + advance(at: time)))
    }

    /// The shell read etcd's newest snapshot and the log after it (`rebuildFromLog`): the core
    /// becomes exactly that state, as a standby.
    public mutating func rebuilt(snapshot: JournalSnapshot?, batches: [LoggedBatch],
                                 at time: CoordinatorTime) -> [CoordinatorAction] {
        guard ha != nil, role == .rebuilding else { return [] }
        ha!.awaitingRead = false
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
        role = .standby
        ha!.retryDelay = HighAvailabilityState.firstRetryDelay
        ha!.retryAt = 0
        let actions: [CoordinatorAction] = [.log(.init(.info, "state rebuilt from etcd", [
            "snapshot": "\(snapshot?.sequence ?? 0)", "replayed": "\(replayed)", "sequence": "\(sequence)"]))]
        return gather(counted(actions + advance(at: time)))
    }

    /// The shell read the log after this core's sequence (`readLog`) while it catches up with a win:
    /// once all of it is applied, it leads. The previous leader cannot write any more: its key is
    /// gone, and its writes were conditional on it.
    public mutating func logRead(_ batches: [LoggedBatch], at time: CoordinatorTime) -> [CoordinatorAction] {
        guard ha != nil, case .catchingUp(let leadership) = role else { return [] }
        ha!.awaitingRead = false
        var actions: [CoordinatorAction] = []
        for logged in batches {
            guard follow(logged) == .applied else {
                actions.append(.log(.init(.info, "catching up: the log does not continue this state; rebuilding",
                                          ["sequence": "\(sequence)", "entry": "\(logged.batch.sequence)"])))
                role = .rebuilding
                ha!.pendingWin = leadership
                return gather(counted(actions + advance(at: time)))
            }
        }
        guard ha!.leaseLives(leadership, at: time.monotonicMilliseconds) else {
            actions += stepDown("the etcd lease was not renewed within its TTL while catching up", resign: true)
            return gather(counted(actions + advance(at: time)))
        }
        actions += lead(leadership, at: time)
        return gather(counted(actions))
    }

    /// A read of the log failed: say why in NOT_LEADER errors, and try again after a pause that
    /// doubles up to 2 s (a coordinator cut off from etcd keeps answering between attempts).
    public mutating func storeFailed(_ failure: StoreFailure, at time: CoordinatorTime) -> [CoordinatorAction] {
        guard ha != nil else { return [] }
        ha!.awaitingRead = false
        ha!.trouble = failure.description
        ha!.retryAt = time.monotonicMilliseconds + ha!.retryDelay
        ha!.retryDelay = min(ha!.retryDelay * 2, HighAvailabilityState.longestRetryDelay)
        if case .catchingUp(let leadership) = role {
            role = .standby
            ha!.pendingWin = leadership
        }
        return counted([.log(.init(.warning, "etcd: could not read the log", ["error": failure.description]))])
    }

    // MARK: Transitions

    /// Starts the next read the role needs, unless one is under way or a retry is not due yet.
    mutating func advance(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard let state = ha, !state.awaitingRead, time.monotonicMilliseconds >= state.retryAt else { return [] }
        switch role {
        case .rebuilding:
            ha!.awaitingRead = true
            return [.rebuildFromLog]
        case .standby:
            guard let win = state.pendingWin else { return [] }
            if settings.plantedBug == .leadWithoutCatchingUp {
                ha!.pendingWin = nil
                return lead(win, at: time)
            }
            role = .catchingUp(win)
            ha!.pendingWin = nil
            ha!.awaitingRead = true
            return [.readLog(after: sequence)]
        case .catchingUp:
            ha!.awaitingRead = true
            return [.readLog(after: sequence)]
        case .leading:
            return []
        }
    }

    /// Leads in `leadership.term`: sequences continue, heartbeats name this coordinator at the next
    /// `tick`, and every node's silence counts from now (K7).
    private mutating func lead(_ leadership: EtcdLeadership, at time: CoordinatorTime) -> [CoordinatorAction] {
        term = UInt64(leadership.term)
        role = .leading(leadership)
        ha!.trouble = nil
        let republished = republish()
        let listening = observeLeader(nil, lease: 0)
        ha!.lastPulse = time.monotonicMilliseconds
        nextHeartbeat = 0
        beginServing(at: time)
        if settings.plantedBug != .skipLivenessReset { restartLivenessClocks(at: time.monotonicMilliseconds) }
        return [.count(.role(leading: true, term: term)),
                .log(.init(.info, "leading", ["term": "\(term)", "sequence": "\(sequence)"]))]
            + listening + republished
    }

    /// Stops deciding at once. The engine may hold commands of a turn that was never made durable,
    /// so the state is read from etcd again before anything else. `resign`: give the leadership up
    /// on etcd (not needed when etcd already took it).
    mutating func stepDown(_ reason: String, resign: Bool) -> [CoordinatorAction] {
        guard ha != nil else { return [] }
        let leadership = role.leadership
        var actions: [CoordinatorAction] = [.log(.init(.warning, "stepping down", [
            "term": "\(term)", "sequence": "\(sequence)", "why": reason]))]
        actions += abandonTurns("not acknowledged: this coordinator stepped down (\(reason))")
        let wasLeading = role.isLeading
        role = .rebuilding
        ha!.pendingWin = nil
        if let leadership {
            ha!.resignedTerm = max(ha!.resignedTerm, leadership.term)
            if resign { actions.append(.resign(leadership)) }
        }
        if wasLeading { actions.append(.count(.role(leading: false, term: term))) }
        return actions
    }

    /// A leader whose lease is not known to live any more stops at once: that covers a leader that
    /// was paused (SIGSTOP, a long stall) past its TTL. It cannot have acknowledged anything since,
    /// and must not publish.
    mutating func checkLease(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard let state = ha, case .leading(let leadership?) = role else { return [] }
        guard state.leaseLives(leadership, at: time.monotonicMilliseconds) else {
            return stepDown("the etcd lease was not renewed within its TTL", resign: true)
        }
        return checkPause(at: time)
    }

    /// A standby applies the leader's log as the watch delivers it; a gap or a batch that does not
    /// apply sends it back to etcd for the whole state.
    private mutating func followLog(_ turn: [LoggedBatch]) -> [CoordinatorAction] {
        switch role {
        case .standby, .catchingUp: break
        case .rebuilding, .leading: return []
        }
        for logged in turn {
            let outcome = follow(logged)
            if outcome == .gap || outcome == .diverged {
                if case .catchingUp(let leadership) = role { ha!.pendingWin = leadership }
                role = .rebuilding
                ha!.awaitingRead = false
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
        term = other.term
        committedSequence = other.committedSequence
        lastSnapshotSequence = other.lastSnapshotSequence
        lastEngineTime = max(lastEngineTime, other.lastEngineTime)
        if settings.plantedBug != .forgetRetryWindowOnFailover { retries = other.retries }
        claims = other.claims
    }
}
