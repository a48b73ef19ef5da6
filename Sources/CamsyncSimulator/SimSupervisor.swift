import CamsyncCoordinator
import CamsyncEtcd
import CamsyncWire
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// What `LeadershipSupervisor` does, against the simulated store: a candidacy (a lease kept alive
/// every TTL/3, a campaign whose win is posted), the leader as the store shows it, and the log's
/// watch; a resignation revokes the lease and a new candidacy begins 200 ms later. It decides
/// nothing: what it posts goes to the real core.
struct SimSupervisor {
    /// Bumped by each new candidacy (and a crash): steps of an older one are ignored.
    var candidacy = 0
    var lease: Int64?
    var ttl: Int64 = 0
    /// Monotonic ms at which the last successful renewal was sent.
    var renewedAt: Int64 = 0
    var campaigning = false
    var wonTerm: Int64?
}

enum SupervisorStep {
    case grant
    case granted(lease: Int64, ttl: Int64, askedAt: Int64)
    case campaigned
    case keepAlive
    case renewed(sentAt: Int64, alive: Bool)
    case unanswered(String)
    case end(String, revoke: Bool)
}

extension Simulation {

    private func coordinatorMonotonic(_ c: Int) -> Int64 { nowMilliseconds + coordinators[c].clockOffset }

    func startCandidacy(_ c: Int, after delay: Int64) {
        coordinators[c].supervisor.candidacy += 1
        coordinators[c].supervisor.lease = nil
        coordinators[c].supervisor.campaigning = false
        coordinators[c].supervisor.wonTerm = nil
        scheduleSupervisor(c, .grant, at: now + delay)
    }

    private func scheduleSupervisor(_ c: Int, _ step: SupervisorStep, at time: Int64) {
        scheduler.schedule(.supervisor(c, generation: coordinators[c].generation, candidacy: coordinators[c].supervisor.candidacy,
                                       step), at: time)
    }

    /// A supervisor request to the store: `apply` runs when it arrives; unreachable, the step fails.
    private func supervisorCall(_ c: Int, _ apply: @escaping () -> SupervisorStep) {
        let generation = coordinators[c].generation, candidacy = coordinators[c].supervisor.candidacy
        guard network.connected(.coordinator(c), .store), store.available else {
            scheduler.schedule(.supervisor(c, generation: generation, candidacy: candidacy,
                                           .unanswered(store.available ? "etcd cannot be reached" : "etcd has no quorum")),
                               at: now + 1_000_000)
            return
        }
        scheduler.schedule(.call { [unowned self] in
            guard network.connected(.coordinator(c), .store), store.available else {
                scheduler.schedule(.supervisor(c, generation: generation, candidacy: candidacy, .unanswered("etcd cannot be reached")),
                                   at: now + 1_000_000)
                return
            }
            let step = apply()
            scheduler.schedule(.supervisor(c, generation: generation, candidacy: candidacy, step),
                               at: now + Int64.random(in: 200...1_000, using: &rng))
        }, at: now + Int64.random(in: 300...1_500, using: &rng) + store.slowBy)
    }

    func post(_ c: Int, _ news: LeadershipEvent, at time: Int64? = nil) {
        scheduler.schedule(.coordinatorNews(c, generation: coordinators[c].generation, news), at: time ?? now)
    }

    func supervise(_ c: Int, _ step: SupervisorStep) {
        switch step {
        case .grant:
            let askedAt = coordinatorMonotonic(c)
            let ttl = options.leaseSeconds * 1000
            supervisorCall(c) { [unowned self] in
                let lease = store.grant(ttl: ttl, at: nowMilliseconds)
                return .granted(lease: lease, ttl: store.leases[lease]?.ttl ?? ttl, askedAt: askedAt)
            }
        case .granted(let lease, let ttl, let askedAt):
            coordinators[c].supervisor.lease = lease
            coordinators[c].supervisor.ttl = ttl
            coordinators[c].supervisor.renewedAt = askedAt
            post(c, .leaseRenewed(lease: lease, validUntil: askedAt + ttl))
            scheduleSupervisor(c, .keepAlive, at: now + ttl * 1000 / 3)
            coordinators[c].supervisor.campaigning = true
            let address = coordinators[c].address
            supervisorCall(c) { [unowned self] in
                guard store.campaign(coordinator: coordinators[c].name, lease: lease, address: address) else {
                    return .end("lease gone before the campaign", revoke: false)
                }
                electionChanged()
                return .campaigned
            }
        case .campaigned:
            checkWin(c)
        case .keepAlive:
            guard let lease = coordinators[c].supervisor.lease else { return }
            let sentAt = coordinatorMonotonic(c)
            supervisorCall(c) { [unowned self] in .renewed(sentAt: sentAt, alive: store.keepAlive(lease, at: nowMilliseconds)) }
            scheduleSupervisor(c, .keepAlive, at: now + coordinators[c].supervisor.ttl * 1000 / 3)
        case .renewed(let sentAt, let alive):
            guard let lease = coordinators[c].supervisor.lease else { return }
            guard alive else {
                supervise(c, .end("lease \(String(lease, radix: 16)) expired", revoke: false))
                return
            }
            coordinators[c].supervisor.renewedAt = max(coordinators[c].supervisor.renewedAt, sentAt)
            post(c, .leaseRenewed(lease: lease, validUntil: sentAt + coordinators[c].supervisor.ttl))
        case .unanswered(let reason):
            post(c, .storeTrouble(reason))
            let supervisor = coordinators[c].supervisor
            if supervisor.lease == nil {
                startCandidacy(c, after: 200_000)
            } else if coordinatorMonotonic(c) - supervisor.renewedAt >= supervisor.ttl {
                supervise(c, .end("not renewed within its TTL: \(reason)", revoke: false))
            }
        case .end(let reason, let revoke):
            if coordinators[c].supervisor.wonTerm != nil || coordinators[c].supervisor.lease != nil {
                post(c, .leaseLost(reason))
            }
            if revoke, let lease = coordinators[c].supervisor.lease { revokeLease(c, lease) }
            startCandidacy(c, after: 200_000)
        }
    }

    /// The core resigned: the lease goes (the leader key with it), and a new candidacy begins.
    func resign(_ c: Int, _ leadership: EtcdLeadership) {
        guard coordinators[c].supervisor.lease == leadership.lease else { return }
        revokeLease(c, leadership.lease)
        startCandidacy(c, after: 200_000)
    }

    func revokeLease(_ c: Int, _ lease: Int64) {
        guard network.connected(.coordinator(c), .store), store.available else { return }
        scheduler.schedule(.call { [unowned self] in
            guard store.available else { return }
            store.revoke(lease)
            electionChanged()
        }, at: now + Int64.random(in: 300...1_500, using: &rng))
    }

    /// A campaigner whose key is now the oldest has won.
    private func checkWin(_ c: Int) {
        let supervisor = coordinators[c].supervisor
        guard supervisor.campaigning, supervisor.wonTerm == nil, let lease = supervisor.lease,
              let leadership = store.leadership(of: lease, election: "/camsync/leader") else { return }
        coordinators[c].supervisor.wonTerm = leadership.term
        trace.record(now, "\(coordinators[c].name) wins term \(leadership.term)", 6, Int64(c), leadership.term)
        post(c, .won(leadership))
    }

    /// The store became unreachable for `c` (a partition, or no quorum): a campaign still waiting
    /// fails with its stream, and the candidacy starts over (the old key goes when its lease, no
    /// longer kept alive, expires), as `LeadershipSupervisor`'s candidacy does when etcd's
    /// Campaign call fails.
    func storeLost(_ c: Int) {
        let supervisor = coordinators[c].supervisor
        guard coordinators[c].running, supervisor.campaigning, supervisor.wonTerm == nil else { return }
        scheduleSupervisor(c, .end("the campaign's stream broke", revoke: true), at: now + 1)
    }

    /// The election changed (a key created or gone): every coordinator that reaches the store hears
    /// of the leader (observe), and a campaigner may have won.
    func electionChanged() {
        let leader = store.leader
        for c in coordinators.indices where coordinators[c].running {
            let at = network.deliveries(from: .store, to: .coordinator(c), at: now, rng: &rng).first
            if let at, let leader {
                var address = leader.address
                address.term = UInt64(leader.createRevision)
                post(c, .leaderObserved(address, lease: leader.lease), at: at)
            }
            // A campaign is a call on a TCP stream: a lossy network delays its answer (a retransmission)
            // but does not lose it; only a partition breaks it (`storeLost`). Dropping it left a
            // campaigner holding the leader key without knowing it had won (seed 74).
            if coordinators[c].supervisor.campaigning, let answer = at ?? (network.connected(.coordinator(c), .store) ? now + 200_000 : nil) {
                scheduler.schedule(.supervisor(c, generation: coordinators[c].generation,
                                               candidacy: coordinators[c].supervisor.candidacy, .campaigned), at: answer)
            }
        }
    }

    /// etcd's lessor: expired leases go at its 500 ms checks.
    func lessorTick() {
        if store.available, store.expireLeases(at: nowMilliseconds) {
            trace.record(now, "a lease expired; the leader is now \(store.leader?.coordinator ?? "none")", 7,
                         store.leader?.createRevision ?? 0)
            electionChanged()
        }
        scheduler.schedule(.lessorTick, at: now + SimStore.lessorTick * 1000)
    }
}
