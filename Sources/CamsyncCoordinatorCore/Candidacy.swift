public import CamsyncEtcdModel
public import CamsyncWire

/// The leadership supervisor's decisions (SPEC K6), written once for both worlds: a candidacy is a
/// lease granted, kept alive every third of its TTL, and a campaign on the election key; a win is
/// told to the core once, and the candidacy ends (its lease revoked, so that the next candidate
/// need not wait for the TTL) when the lease is gone, when no renewal succeeded within the TTL, when
/// the campaign's call fails, or when the core resigns. A new candidacy begins `retryMilliseconds`
/// later.
///
/// It takes an answer of etcd (or the core's resignation) and returns what to do: calls to make,
/// news to post to the core. `LeadershipSupervisor` carries the effects out against etcd with
/// tasks, the simulator against its store with scheduled events; neither decides anything.
public struct Candidacy: Sendable {
    /// The lease's TTL asked for, in milliseconds (etcd may grant a longer one).
    public let ttlMilliseconds: Int64
    /// The pause before a candidacy that ended is begun again.
    public let retryMilliseconds: Int64

    /// Each candidacy's number: the answers to an older candidacy's calls are ignored.
    public private(set) var number = 0
    /// The lease granted to the candidacy under way.
    public private(set) var lease: Int64?
    /// The term this candidacy won (nil: not won yet).
    public private(set) var wonTerm: Int64?
    /// The TTL etcd granted.
    private var grantedTTL: Int64 = 0
    /// Shut down: no candidacy begins again.
    private var shutting = false
    /// When (monotonic ms) the last renewal that succeeded was sent (or the grant asked for).
    private var renewedAt: Int64 = 0

    public init(ttlMilliseconds: Int64, retryMilliseconds: Int64 = 200) {
        self.ttlMilliseconds = ttlMilliseconds
        self.retryMilliseconds = retryMilliseconds
    }

    /// What a world does for the candidacy.
    public enum Effect: Sendable, Equatable {
        /// Ask etcd for a lease of `ttlMilliseconds`; answer `.granted` or `.failed(.grant, …)`.
        case grant(candidacy: Int)
        /// Campaign for the election with `lease`; answer `.won` (or the observer's `.observed` of
        /// the own key) or `.failed(.campaign, …)`.
        case campaign(candidacy: Int, lease: Int64)
        /// After `afterMilliseconds`, renew `lease` once, giving each etcd member at most
        /// `attemptMilliseconds` to answer before the next is asked; answer `.renewed`, `.leaseGone`
        /// or `.failed(.renewal, …)`.
        case renew(candidacy: Int, lease: Int64, afterMilliseconds: Int64, attemptMilliseconds: Int64)
        /// Revoke `lease` (its leader key goes with it); nothing answers.
        case revoke(lease: Int64)
        /// Tell the core.
        case post(LeadershipEvent)
        /// After `afterMilliseconds`, answer `.retry(candidacy:)`.
        case retry(candidacy: Int, afterMilliseconds: Int64)
    }

    /// Which call failed.
    public enum Call: Sendable, Equatable { case grant, campaign, renewal }

    /// Begins a candidacy (at start, and each time one ended and its retry fell due).
    public mutating func begin() -> [Effect] {
        number += 1
        lease = nil
        wonTerm = nil
        return [.grant(candidacy: number)]
    }

    /// etcd granted `lease` of `ttlMilliseconds`, asked for at `askedAt` (monotonic ms): it lives
    /// at least a TTL from then. A lease granted to a candidacy that has ended is revoked.
    public mutating func granted(candidacy: Int, lease: Int64, ttlMilliseconds ttl: Int64, askedAt: Int64) -> [Effect] {
        guard candidacy == number, self.lease == nil else { return [.revoke(lease: lease)] }
        self.lease = lease
        grantedTTL = ttl
        renewedAt = askedAt
        return [.post(.leaseRenewed(lease: lease, validUntil: askedAt + ttl)),
                .campaign(candidacy: number, lease: lease),
                renewal()]
    }

    /// A renewal sent at `sentAt` (monotonic ms) succeeded: the lease lives a TTL from then.
    public mutating func renewed(candidacy: Int, lease: Int64, sentAt: Int64) -> [Effect] {
        guard candidacy == number, lease == self.lease else { return [] }
        renewedAt = max(renewedAt, sentAt)
        return [.post(.leaseRenewed(lease: lease, validUntil: sentAt + grantedTTL)),
                renewal()]
    }

    /// The next renewal: a third of the TTL from now, each member given a sixth of it to answer. A
    /// member that cannot be reached (cut off, or without quorum) costs a sixth, not the whole
    /// request timeout, so that a renewal asks two more of three members before the lease lapses
    /// (what the HA soak with partitions found: a renewal waiting 5 s on a cut member lost a 2 s lease).
    private func renewal() -> Effect {
        .renew(candidacy: number, lease: lease ?? 0, afterMilliseconds: grantedTTL / 3, attemptMilliseconds: grantedTTL / 6)
    }

    /// The campaign returned: this candidacy leads in `leadership.term`.
    public mutating func won(candidacy: Int, _ leadership: EtcdLeadership) -> [Effect] {
        guard candidacy == number, leadership.lease == lease, wonTerm == nil else { return [] }
        wonTerm = leadership.term
        return [.post(.won(leadership))]
    }

    /// The leader as etcd shows it (nil: none). When its key is this candidacy's own, it is a win,
    /// whether or not the campaign's call has returned: a campaign whose stream stalled must not
    /// leave a leader key that nobody acts for (what `camsync sim` found; seed 74's kin).
    public mutating func observed(_ leader: Camsync_V1_CoordinatorAddress?, _ leadership: EtcdLeadership?) -> [Effect] {
        var effects: [Effect] = [.post(.leaderObserved(leader, lease: leadership?.lease ?? 0))]
        if let leadership, leadership.lease == lease {
            effects += won(candidacy: number, leadership)
        }
        return effects
    }

    /// etcd says the lease is gone.
    public mutating func leaseGone(candidacy: Int, lease: Int64) -> [Effect] {
        guard candidacy == number, lease == self.lease else { return [] }
        return end(because: "lease \(String(UInt64(bitPattern: lease), radix: 16)) has expired or was revoked", tellTheCore: true)
    }

    /// A call failed at `now` (monotonic ms); `trouble` says when etcd itself is unwell (no quorum,
    /// unreachable), which the core is told. A failed grant or campaign ends the candidacy; a failed
    /// renewal ends it only once no renewal succeeded within the TTL (then the lease has expired on
    /// etcd's side too), and is otherwise tried again a third of the TTL later.
    public mutating func failed(_ call: Call, candidacy: Int, reason: String, trouble: String?, now: Int64) -> [Effect] {
        guard candidacy == number else { return [] }
        var effects: [Effect] = trouble.map { [.post(.storeTrouble($0))] } ?? []
        switch call {
        case .grant:
            guard lease == nil else { return effects }
            effects += end(because: "could not grant a lease: \(reason)", tellTheCore: false)
        case .campaign:
            guard lease != nil else { return effects }
            effects += end(because: "the campaign failed: \(reason)", tellTheCore: true)
        case .renewal:
            guard let lease else { return effects }
            if now - renewedAt >= grantedTTL {
                effects += end(because: "lease \(String(UInt64(bitPattern: lease), radix: 16)) not renewed within its TTL: \(reason)",
                               tellTheCore: true)
            } else {
                effects.append(renewal())
            }
        }
        return effects
    }

    /// The core resigned `leadership`: the lease goes, and a new candidacy begins after the pause.
    public mutating func resigned(_ leadership: EtcdLeadership) -> [Effect] {
        guard leadership.lease == lease else { return [] }
        return end(because: "resigned term \(leadership.term)", tellTheCore: false)
    }

    /// The retry of an ended candidacy fell due.
    public mutating func retry(candidacy: Int) -> [Effect] {
        guard candidacy == number, lease == nil, !shutting else { return [] }
        return begin()
    }

    /// Gives the lease up at shutdown: the effects revoke it; nothing begins again.
    public mutating func shutDown() -> [Effect] {
        shutting = true
        number += 1
        defer { lease = nil; wonTerm = nil }
        return lease.map { [.revoke(lease: $0)] } ?? []
    }

    /// Ends the candidacy under way: its lease is revoked (a lease etcd already dropped is not an
    /// error), the core is told that the lease is lost when it may think it holds one, and a retry
    /// is scheduled.
    private mutating func end(because reason: String, tellTheCore: Bool) -> [Effect] {
        var effects: [Effect] = []
        if let lease {
            if tellTheCore { effects.append(.post(.leaseLost(reason))) }
            effects.append(.revoke(lease: lease))
        }
        lease = nil
        wonTerm = nil
        number += 1
        effects.append(.retry(candidacy: number, afterMilliseconds: retryMilliseconds))
        return effects
    }
}
