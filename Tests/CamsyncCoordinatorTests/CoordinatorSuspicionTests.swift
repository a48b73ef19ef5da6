import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// Failover without waiting for lease expiry, in the core: the leader's pulse, a
/// standby's suspicion and the revocation it asks for, a paused leader stepping down by itself, and
/// the new leader publishing again the tail the old one may not have published (K7).
@Suite("CoordinatorCore suspicion: pulse, revoke, pause step-down, republish")
struct CoordinatorSuspicionTests {
    typealias R = CoordinatorReceiveTests
    typealias L = CoordinatorLeadershipTests

    static let pulseMs: Int64 = 50
    static let windowMs: Int64 = 400

    /// An HA core whose settings say pulse 50 ms, suspicion 400 ms (lease 7 is the leader's).
    static func fresh() -> CoordinatorCore {
        var settings = R.core().settings
        settings.highAvailability = HighAvailabilitySettings(etcd: [], name: "c2", pulseMilliseconds: pulseMs,
                                                             suspicionMilliseconds: windowMs)
        var core = CoordinatorCore(settings: settings, highAvailability: L.ownAddress)
        core.beginServing(at: R.at(0))
        return core
    }

    static func standby(log: [Camsync_V1_EventBatch] = [], leaderLease: Int64 = 99) -> (CoordinatorCore, [CoordinatorAction]) {
        var core = fresh()
        _ = core.tick(at: R.at(0))
        _ = core.rebuilt(snapshot: nil, batches: log.map(LoggedBatch.init), at: R.at(1))
        let actions = core.observe(.leaderObserved(L.leaderAddress, lease: leaderLease), at: R.at(1))
        return (core, actions)
    }

    /// The leader's pulse as a standby's SUB receives it (topic, envelope).
    static func pulse(from leader: Camsync_V1_CoordinatorAddress = L.leaderAddress, term: UInt64 = 41,
                      lastSequence: UInt64 = 0) -> [[UInt8]] {
        var envelope = Envelope.coordinatorHeartbeat(term: term, lastSequence: lastSequence, time: Instant(milliseconds: 1))
        if case .coordinatorHeartbeat(var body)? = envelope.body {
            body.coordinator = leader
            body.coordinator.term = term
            envelope.body = .coordinatorHeartbeat(body)
        }
        return [Array(CoordinatorCore.pulseTopic.utf8), envelope.serializedBytes()]
    }

    static func revocations(_ actions: [CoordinatorAction]) -> [Int64] {
        actions.compactMap { if case .revokeLease(let lease) = $0 { lease } else { nil } }
    }

    static func publications(_ actions: [CoordinatorAction], topic: String) -> [Envelope] {
        actions.compactMap { if case .publish(topic, let publication) = $0 { publication.envelope } else { nil } }
    }

    @Test("a standby listens to the leader etcd names, and to none once it leads itself")
    func listens() {
        let (_, actions) = Self.standby()
        #expect(actions.contains(.listen(toLeader: L.leaderAddress)))
        var core = Self.standby().0
        #expect(!core.observe(.leaderObserved(L.leaderAddress, lease: 99), at: R.at(2)).contains { if case .listen = $0 { true } else { false } },
                "the same leader again: nothing changes")
        let led = L.lead(&core, term: 50)
        #expect(led.contains(.listen(toLeader: nil)))
    }

    @Test("heard, then silent for the window → the leader's lease is revoked, once; the deadline says when")
    func suspects() {
        var (core, _) = Self.standby()
        _ = core.heardPulse(Self.pulse(), at: R.at(100))
        #expect(core.nextDeadline(at: R.at(100)) <= 100 + Self.windowMs)
        for t in stride(from: Int64(150), to: 100 + Self.windowMs, by: 50) {
            #expect(Self.revocations(core.tick(at: R.at(t))).isEmpty, "at \(t): within the window")
        }
        let suspected = core.tick(at: R.at(100 + Self.windowMs))
        #expect(Self.revocations(suspected) == [99])
        #expect(suspected.contains(.count(.leaderSuspected)))
        #expect(Self.revocations(core.tick(at: R.at(2_000))).isEmpty, "revoked once")
    }

    @Test("pulses keep the suspicion away; one from another coordinator or an older term does not")
    func pulsesCount() {
        var (core, _) = Self.standby()
        for t in stride(from: Int64(100), through: 3_000, by: 300) {
            _ = core.heardPulse(Self.pulse(), at: R.at(t))
            #expect(Self.revocations(core.tick(at: R.at(t + 10))).isEmpty)
        }
        var impostor = L.leaderAddress
        impostor.name = "c9"
        _ = core.heardPulse(Self.pulse(from: impostor), at: R.at(3_200))
        _ = core.heardPulse(Self.pulse(term: 40), at: R.at(3_250))
        #expect(Self.revocations(core.tick(at: R.at(2_800 + Self.windowMs))) == [99])
    }

    @Test("never heard (it cannot reach the leader's PUB): no suspicion, the lease's expiry decides")
    func neverHeard() {
        var (core, _) = Self.standby()
        for t in stride(from: Int64(0), through: 10_000, by: 100) { #expect(Self.revocations(core.tick(at: R.at(t))).isEmpty) }
    }

    @Test("a new leader observed: what was heard of the old one does not count for it")
    func newLeaderResets() {
        var (core, _) = Self.standby()
        _ = core.heardPulse(Self.pulse(), at: R.at(100))
        var next = L.leaderAddress
        next.name = "c3"
        next.term = 60
        #expect(core.observe(.leaderObserved(next, lease: 123), at: R.at(200)).contains(.listen(toLeader: next)))
        #expect(Self.revocations(core.tick(at: R.at(5_000))).isEmpty, "c3 not heard yet")
    }

    @Test("the leader publishes its pulse every interval under `pulse`; nodes' topics do not match it")
    func leaderPulses() {
        var core = Self.standby().0
        _ = L.lead(&core, term: 50, at: 10, leaseUntil: 100_000)
        var pulses: [Int64] = []
        for t in stride(from: Int64(10), through: 310, by: 10) {
            let actions = core.tick(at: R.at(t)) + core.endTurn(at: R.at(t))
            if !Self.publications(actions, topic: CoordinatorCore.pulseTopic).isEmpty { pulses.append(t) }
        }
        #expect(pulses == [60, 110, 160, 210, 260, 310])
        #expect(!CoordinatorCore.pulseTopic.hasPrefix("ev.") && !CoordinatorCore.pulseTopic.hasPrefix("hb")
                && !CoordinatorCore.pulseTopic.hasPrefix(EventTopic.everyBatch))
    }

    @Test("a leader paused longer than the window steps down and resigns before it answers or commits")
    func pausedLeaderStepsDown() throws {
        var core = Self.standby().0
        _ = L.lead(&core, term: 50, at: 10, leaseUntil: 100_000)
        _ = core.tick(at: R.at(60))
        // Paused from 60 to 60 + window + 1: the lease is still known to live, yet a standby may have revoked it.
        let actions = core.receiveTurn(R.frame(R.register("ipad-1")), at: R.at(61 + Self.windowMs))
        #expect(L.notLeader(actions).count == 1)
        #expect(L.resigns(actions) == [L.leadership(50)])
        #expect(!actions.contains { if case .commit = $0 { true } else { false } })
        #expect(!actions.contains { if case .publish = $0 { true } else { false } })
        #expect(!core.role.isLeading)
    }

    @Test("K7: the new leader publishes again the batches after the last sequence the old leader's pulse announced")
    func republishesTail() {
        let log = L.leaderBatches(5)
        var (core, _) = Self.standby(log: log)
        _ = core.heardPulse(Self.pulse(lastSequence: 3), at: R.at(5))
        let actions = L.lead(&core, term: 50) + core.endTurn(at: R.at(10))
        let sequences = actions.compactMap { action -> UInt64? in
            if case .publish(let topic, let publication) = action, topic == EventTopic.everyBatch,
               case .eventBatch(let batch)? = publication.envelope.body { batch.sequence } else { nil }
        }
        #expect(sequences == [4, 5])
    }

    @Test("K7 after a real failover: the old leader's key vanishes (etcd shows no leader) before the win; only the batches after its last pulse are published again")
    func republishesOnlyTheUnannouncedTail() {
        let log = L.leaderBatches(100)
        var (core, _) = Self.standby(log: log)
        _ = core.heardPulse(Self.pulse(lastSequence: 97), at: R.at(5))
        // The suspicion revoked the old leader's lease: etcd deletes its key and shows no leader.
        _ = core.observe(.leaderObserved(nil, lease: 0), at: R.at(6))
        let actions = L.lead(&core, term: 50) + core.endTurn(at: R.at(10))
        let sequences = actions.compactMap { action -> UInt64? in
            if case .publish(let topic, let publication) = action, topic == EventTopic.everyBatch,
               case .eventBatch(let batch)? = publication.envelope.body { batch.sequence } else { nil }
        }
        #expect(sequences == [98, 99, 100])
    }

    @Test("no suspicion when the window is 0 (failover waits for the lease to expire)")
    func suspicionOff() {
        var settings = R.core().settings
        settings.highAvailability = HighAvailabilitySettings(etcd: [], name: "c2", suspicionMilliseconds: 0)
        var core = CoordinatorCore(settings: settings, highAvailability: L.ownAddress)
        _ = core.tick(at: R.at(0))
        _ = core.rebuilt(snapshot: nil, batches: [], at: R.at(1))
        _ = core.observe(.leaderObserved(L.leaderAddress, lease: 99), at: R.at(1))
        _ = core.heardPulse(Self.pulse(), at: R.at(2))
        #expect(Self.revocations(core.tick(at: R.at(10_000))).isEmpty)
    }
}
