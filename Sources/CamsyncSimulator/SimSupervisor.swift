import CamsyncCoordinator
import CamsyncEtcd
import CamsyncWire
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The simulated world's side of a coordinator's `Candidacy` (what `LeadershipSupervisor` is for
/// etcd): it carries out the candidacy's effects against the simulated store, each call taking
/// 0.3–1.5 s there and 0.2–1 s back (a second when the store cannot be reached), and feeds the
/// answers back. It decides nothing.
struct SimSupervisor {
    var candidacy: Candidacy
    /// The candidacy whose campaign call is open (answered when its key is the oldest, or broken by
    /// a partition from the store).
    var campaigning: Int?

    init(leaseSeconds: Int64) {
        candidacy = Candidacy(ttlMilliseconds: leaseSeconds * 1000)
    }
}

/// An answer to a call of the candidacy (or news for it), delivered as a scheduled event.
enum SupervisorAnswer {
    case begin
    case granted(candidacy: Int, lease: Int64, ttl: Int64, askedAt: Int64)
    /// The campaign's call returns when its key is the oldest.
    case campaigned(candidacy: Int)
    /// A renewal falls due.
    case renewDue(candidacy: Int, lease: Int64)
    case renewed(candidacy: Int, lease: Int64, sentAt: Int64)
    case leaseGone(candidacy: Int, lease: Int64)
    case failed(Candidacy.Call, candidacy: Int, reason: String, trouble: String?)
    case retry(candidacy: Int)
    case observed(Camsync_V1_CoordinatorAddress?, EtcdLeadership?)
    case resigned(EtcdLeadership)
}

extension Simulation {

    private func coordinatorMonotonic(_ c: Int) -> Int64 { nowMilliseconds + coordinators[c].clockOffset }

    private func scheduleSupervisor(_ c: Int, _ answer: SupervisorAnswer, at time: Int64) {
        scheduler.schedule(.supervisor(c, generation: coordinators[c].generation, answer), at: time)
    }

    /// A call to the store: `apply` runs when it arrives and its answer comes back; unreachable, the
    /// call fails (`unreachable` says how) after a second.
    private func supervisorCall(_ c: Int, failing unreachable: @escaping (_ reason: String) -> SupervisorAnswer,
                                _ apply: @escaping () -> SupervisorAnswer) {
        let generation = coordinators[c].generation
        guard network.connected(.coordinator(c), .store), store.available else {
            scheduleSupervisor(c, unreachable(store.available ? "etcd cannot be reached" : "etcd has no quorum"), at: now + 1_000_000)
            return
        }
        scheduler.schedule(.call { [unowned self] in
            guard network.connected(.coordinator(c), .store), store.available else {
                scheduler.schedule(.supervisor(c, generation: generation, unreachable("etcd cannot be reached")), at: now + 1_000_000)
                return
            }
            let answer = apply()
            scheduler.schedule(.supervisor(c, generation: generation, answer), at: now + Int64.random(in: 200...1_000, using: &rng))
        }, at: now + Int64.random(in: 300...1_500, using: &rng) + store.slowBy)
    }

    func post(_ c: Int, _ news: LeadershipEvent, at time: Int64? = nil) {
        scheduler.schedule(.coordinatorNews(c, generation: coordinators[c].generation, news), at: time ?? now)
    }

    /// Begins coordinator `c`'s first candidacy.
    func startCandidacy(_ c: Int) {
        scheduleSupervisor(c, .begin, at: now)
    }

    /// Steps `c`'s candidacy with an answer and carries out its effects.
    func supervise(_ c: Int, _ answer: SupervisorAnswer) {
        let effects: [Candidacy.Effect]
        switch answer {
        case .begin:
            effects = coordinators[c].supervisor.candidacy.begin()
        case .granted(let number, let lease, let ttl, let askedAt):
            effects = coordinators[c].supervisor.candidacy.granted(candidacy: number, lease: lease, ttlMilliseconds: ttl, askedAt: askedAt)
        case .campaigned(let number):
            guard coordinators[c].supervisor.campaigning == number, let lease = coordinators[c].supervisor.candidacy.lease,
                  let leadership = store.leadership(of: lease, election: SimStore.election) else { return }
            coordinators[c].supervisor.campaigning = nil
            effects = coordinators[c].supervisor.candidacy.won(candidacy: number, leadership)
        case .renewDue(let number, let lease):
            let sentAt = coordinatorMonotonic(c)
            supervisorCall(c, failing: { .failed(.renewal, candidacy: number, reason: $0, trouble: $0) }) { [unowned self] in
                store.keepAlive(lease, at: nowMilliseconds) ? .renewed(candidacy: number, lease: lease, sentAt: sentAt)
                                                            : .leaseGone(candidacy: number, lease: lease)
            }
            return
        case .renewed(let number, let lease, let sentAt):
            effects = coordinators[c].supervisor.candidacy.renewed(candidacy: number, lease: lease, sentAt: sentAt)
        case .leaseGone(let number, let lease):
            effects = coordinators[c].supervisor.candidacy.leaseGone(candidacy: number, lease: lease)
        case .failed(let call, let number, let reason, let trouble):
            if call == .campaign, coordinators[c].supervisor.campaigning == number { coordinators[c].supervisor.campaigning = nil }
            effects = coordinators[c].supervisor.candidacy.failed(call, candidacy: number, reason: reason, trouble: trouble,
                                                                  now: coordinatorMonotonic(c))
        case .retry(let number):
            effects = coordinators[c].supervisor.candidacy.retry(candidacy: number)
        case .observed(let address, let leadership):
            effects = coordinators[c].supervisor.candidacy.observed(address, leadership)
        case .resigned(let leadership):
            effects = coordinators[c].supervisor.candidacy.resigned(leadership)
        }
        for effect in effects { carryOut(c, effect) }
    }

    private func carryOut(_ c: Int, _ effect: Candidacy.Effect) {
        switch effect {
        case .post(let news):
            if case .won(let leadership) = news {
                trace.record(now, "\(coordinators[c].name) wins term \(leadership.term)", 6, Int64(c), leadership.term)
            }
            post(c, news)
        case .grant(let number):
            let askedAt = coordinatorMonotonic(c)
            let ttl = coordinators[c].supervisor.candidacy.ttlMilliseconds
            supervisorCall(c, failing: { .failed(.grant, candidacy: number, reason: $0, trouble: $0) }) { [unowned self] in
                let lease = store.grant(ttl: ttl, at: nowMilliseconds)
                return .granted(candidacy: number, lease: lease, ttl: store.leases[lease]?.ttl ?? ttl, askedAt: askedAt)
            }
        case .campaign(let number, let lease):
            coordinators[c].supervisor.campaigning = number
            let address = coordinators[c].address
            supervisorCall(c, failing: { .failed(.campaign, candidacy: number, reason: $0, trouble: $0) }) { [unowned self] in
                guard store.campaign(coordinator: coordinators[c].name, lease: lease, address: address) else {
                    return .failed(.campaign, candidacy: number, reason: "lease gone before the campaign", trouble: nil)
                }
                electionChanged()
                return .campaigned(candidacy: number)
            }
        case .renew(let number, let lease, let after, _):
            scheduleSupervisor(c, .renewDue(candidacy: number, lease: lease), at: now + after * 1000)
        case .revoke(let lease):
            revokeLease(c, lease)
        case .retry(let number, let after):
            scheduleSupervisor(c, .retry(candidacy: number), at: now + after * 1000)
        }
    }

    /// The core resigned `leadership`.
    func resign(_ c: Int, _ leadership: EtcdLeadership) {
        supervise(c, .resigned(leadership))
    }

    func revokeLease(_ c: Int, _ lease: Int64) {
        guard network.connected(.coordinator(c), .store), store.available else { return }
        scheduler.schedule(.call { [unowned self] in
            guard store.available else { return }
            store.revoke(lease)
            electionChanged()
        }, at: now + Int64.random(in: 300...1_500, using: &rng))
    }

    /// The store became unreachable for `c` (a partition, or no quorum): a campaign still waiting
    /// fails with its stream, as etcd's Campaign call does.
    func storeLost(_ c: Int) {
        guard coordinators[c].running, let number = coordinators[c].supervisor.campaigning else { return }
        scheduleSupervisor(c, .failed(.campaign, candidacy: number, reason: "the campaign's stream broke", trouble: nil), at: now + 1)
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
                scheduleSupervisor(c, .observed(address, store.leadership(of: leader.lease, election: SimStore.election)), at: at)
            }
            // A campaign is a call on a TCP stream: a lossy network delays its answer (a retransmission)
            // but does not lose it; only a partition breaks it (`storeLost`). Dropping it left a
            // campaigner holding the leader key without knowing it had won (seed 74).
            if let number = coordinators[c].supervisor.campaigning,
               let answer = at ?? (network.connected(.coordinator(c), .store) ? now + 200_000 : nil) {
                scheduleSupervisor(c, .campaigned(candidacy: number), at: answer)
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
