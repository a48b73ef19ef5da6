import CamsyncPolicy
public import CamsyncWire

/// Failover without waiting for lease expiry (SPEC K6, K7): the leader publishes a pulse (a
/// coordinator heartbeat under the `pulse` topic) every `pulseMilliseconds`; each standby listens to
/// the leader etcd names. A standby that heard the pulse in the leader's term and then hears nothing
/// for `suspicionMilliseconds` revokes the lease behind the leader key, so that the next candidate
/// wins at once. Safety does not rest on it: every leader write is conditional on its key, so a
/// wrong suspicion costs one needless failover, never a double acknowledgement. A leader that could
/// not publish its pulse for that long (paused, stalled) steps down by itself, since a standby may
/// have revoked it: it neither acknowledges nor publishes a batch after that.
extension CoordinatorCore {

    /// The PUB topic of the leader's pulse. Nodes subscribe to `ev.` and `hb`, which it does not match.
    public static let pulseTopic = "pulse"

    var suspicionMilliseconds: Int64 { settings.highAvailability?.suspicionMilliseconds ?? 0 }

    /// One message on the standby's SUB to the leader's event endpoint (topic, then an `Envelope`):
    /// the leader's pulse, when it comes from the leader etcd names, in its term or later.
    public mutating func heardPulse(_ frames: [[UInt8]], at time: CoordinatorTime) -> [CoordinatorAction] {
        guard isHighAvailability, frames.count == 2, let envelope = try? Envelope.decode(frames[1]),
              case .coordinatorHeartbeat(let pulse)? = envelope.body, let leader = ha.leader,
              pulse.coordinator.name == leader.name, pulse.term >= leader.term else { return [] }
        ha.leaderHeardAt = time.monotonicMilliseconds
        ha.leaderPublishedThrough = max(ha.leaderPublishedThrough, pulse.lastSequence)
        return []
    }

    /// etcd shows `leader` (nil: none, or this coordinator) behind `lease`: listen to its pulse from
    /// now on; what was heard of another leader does not count for this one's suspicion. What the
    /// pulses announced as published is kept: sequences continue across leaders, and a failover
    /// passes through "no leader" (the old key revoked or expired) before this standby may win, so
    /// forgetting it there made every new leader publish its last 64 batches again.
    mutating func observeLeader(_ leader: Camsync_V1_CoordinatorAddress?, lease: Int64) -> [CoordinatorAction] {
        let changed = leader?.name != ha.leader?.name || leader?.term != ha.leader?.term
            || leader?.eventEndpoint != ha.leader?.eventEndpoint
        ha.leader = leader
        ha.leaderLease = leader == nil ? 0 : lease
        guard changed else { return [] }
        ha.leaderHeardAt = nil
        return [.listen(toLeader: leader)]
    }

    /// A standby's suspicion: the leader's pulse has stopped for the whole window. The lease behind
    /// its key is revoked once (by every standby that suspects it; the second revocation finds none).
    func suspicionDeadline() -> Int64? {
        guard case .highAvailability(let state) = mode, suspicionMilliseconds > 0, role.leadership == nil, !role.isLeading,
              state.leader != nil, state.leaderLease != 0, state.revokedLease != state.leaderLease,
              let heard = state.leaderHeardAt else { return nil }
        return heard + suspicionMilliseconds
    }

    mutating func suspectLeader(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard let due = suspicionDeadline(), time.monotonicMilliseconds >= due, let leader = ha.leader else { return [] }
        let lease = ha.leaderLease
        ha.revokedLease = lease
        let silent = time.monotonicMilliseconds - (ha.leaderHeardAt ?? 0)
        return [.count(.leaderSuspected),
                .log(.init(.warning, "the leader's pulse stopped: revoking its lease so that a standby can lead", [
                    "leader": leader.name, "term": "\(leader.term)", "silentMs": "\(silent)",
                    "lease": String(UInt64(bitPattern: lease), radix: 16)])),
                .revokeLease(lease)]
    }

    /// The leader's side: a pulse when one is due (`checkPause` runs before, at every event). It
    /// announces the last sequence published, which the new leader's `republish` starts after.
    mutating func pulse(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard let interval = settings.highAvailability?.pulseMilliseconds,
              case .highAvailability(let state) = mode, case .leading(let leadership, let lastPulse) = state.phase,
              time.monotonicMilliseconds >= lastPulse + interval else { return [] }
        ha.phase = .leading(leadership, lastPulse: time.monotonicMilliseconds)
        return [.publish(topic: Self.pulseTopic, Publication(heartbeatEnvelope(at: time, lastSequence: committedSequence)))]
    }

    /// A leader that has not published its pulse for the suspicion window (it was paused, or its loop
    /// stalled) may have been revoked by a standby: it steps down before it answers a frame or
    /// commits a turn. The commit would fail anyway once etcd took the key; this also keeps it
    /// from publishing.
    mutating func checkPause(at time: CoordinatorTime) -> [CoordinatorAction] {
        guard suspicionMilliseconds > 0, case .highAvailability(let state) = mode,
              case .leading(_, let lastPulse) = state.phase,
              time.monotonicMilliseconds - lastPulse > suspicionMilliseconds else { return [] }
        return stepDown("no pulse published for \(time.monotonicMilliseconds - lastPulse) ms, longer than the "
                        + "standbys' suspicion window (\(suspicionMilliseconds) ms): one may have revoked this leadership",
                        resign: true)
    }

    /// K7: the new leader publishes again what the old one committed but may not have published
    /// (it dies after its commit, before its publications): the batches after the last sequence a
    /// pulse announced — at most what the old leader published in its last pulse interval — or its
    /// last 64 when this coordinator never heard a pulse (it started after the old leader died).
    /// Nodes drop what they hold already, and the rest continues their replicas: no snapshot, no
    /// rejoin; `ctl watch` and the other printing followers skip a sequence they have shown.
    mutating func republish() -> [CoordinatorAction] {
        guard case .highAvailability(let state) = mode else { return [] }
        bookmarks.everyGroupNextTime()   // and every group's position, at the first heartbeat
        let after = state.leaderPublishedThrough > 0 ? state.leaderPublishedThrough : sequence - min(sequence, 64)
        return recentBatches.after(after, through: sequence).flatMap { encoded -> [CoordinatorAction] in
            guard let batch = try? Camsync_V1_EventBatch(serializedBytes: encoded) else { return [] }
            let publication = Publication(.eventBatch(batch))
            return publications(publication, groups: batch.groups.map { NodeID($0.group) }, at: nil)
        }
    }
}
