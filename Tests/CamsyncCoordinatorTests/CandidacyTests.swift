import CamsyncCoordinatorCore
import CamsyncEtcdModel
import CamsyncWire
import Testing

/// The leadership supervisor's decisions (`Candidacy`), which `LeadershipSupervisor` and the
/// simulator both carry out.
@Suite struct CandidacyTests {
    static let leadership = EtcdLeadership(election: "e", key: "e/7", term: 40, lease: 7)

    /// A candidacy granted lease 7 (TTL 3 s) at 1,000 ms.
    static func granted() -> Candidacy {
        var candidacy = Candidacy(ttlMilliseconds: 3000)
        #expect(candidacy.begin() == [.grant(candidacy: 1)])
        #expect(candidacy.granted(candidacy: 1, lease: 7, ttlMilliseconds: 3000, askedAt: 1000)
                == [.post(.leaseRenewed(lease: 7, validUntil: 4000)), .campaign(candidacy: 1, lease: 7),
                    .renew(candidacy: 1, lease: 7, afterMilliseconds: 1000, attemptMilliseconds: 500)])
        return candidacy
    }

    @Test("a grant campaigns and keeps the lease alive; each renewal tells the core how long it lives")
    func grantAndRenew() {
        var candidacy = Self.granted()
        #expect(candidacy.renewed(candidacy: 1, lease: 7, sentAt: 2000)
                == [.post(.leaseRenewed(lease: 7, validUntil: 5000)), .renew(candidacy: 1, lease: 7, afterMilliseconds: 1000, attemptMilliseconds: 500)])
        #expect(candidacy.renewed(candidacy: 0, lease: 7, sentAt: 2500) == [], "an older candidacy's answer")
    }

    @Test("a win is told once, whether the campaign or the observer sees it first")
    func winToldOnce() {
        var candidacy = Self.granted()
        var address = Camsync_V1_CoordinatorAddress()
        address.name = "c1"
        #expect(candidacy.observed(address, Self.leadership)
                == [.post(.leaderObserved(address, lease: 7)), .post(.won(Self.leadership))])
        #expect(candidacy.won(candidacy: 1, Self.leadership) == [], "the campaign's late return")
        #expect(candidacy.wonTerm == 40)
        let other = EtcdLeadership(election: "e", key: "e/9", term: 41, lease: 9)
        var fresh = Self.granted()
        #expect(fresh.observed(address, other) == [.post(.leaderObserved(address, lease: 9))], "another's key is no win")
    }

    @Test("a failed renewal is tried again until a TTL has passed since the last one that succeeded; then the lease is lost")
    func renewalFailures() {
        var candidacy = Self.granted()
        #expect(candidacy.failed(.renewal, candidacy: 1, reason: "timeout", trouble: nil, now: 3999)
                == [.renew(candidacy: 1, lease: 7, afterMilliseconds: 1000, attemptMilliseconds: 500)])
        let ended = candidacy.failed(.renewal, candidacy: 1, reason: "timeout", trouble: "etcd cannot be reached", now: 4000)
        #expect(ended.first == .post(.storeTrouble("etcd cannot be reached")))
        #expect(ended.contains { if case .post(.leaseLost) = $0 { true } else { false } })
        #expect(Array(ended.suffix(2)) == [.revoke(lease: 7), .retry(candidacy: 2, afterMilliseconds: 200)])
        #expect(candidacy.lease == nil)
        #expect(candidacy.retry(candidacy: 2) == [.grant(candidacy: 3)])
        #expect(candidacy.retry(candidacy: 2) == [], "one retry begins one candidacy")
    }

    @Test("the core's resignation revokes the lease without telling the core it was lost, and campaigns again")
    func resignation() {
        var candidacy = Self.granted()
        _ = candidacy.won(candidacy: 1, Self.leadership)
        #expect(candidacy.resigned(EtcdLeadership(election: "e", key: "e/3", term: 12, lease: 3)) == [], "not this lease")
        #expect(candidacy.resigned(Self.leadership) == [.revoke(lease: 7), .retry(candidacy: 2, afterMilliseconds: 200)])
    }

    @Test("a failed campaign ends the candidacy and the core hears its lease is lost; a failed grant only retries")
    func failedCalls() {
        var campaigning = Self.granted()
        let ended = campaigning.failed(.campaign, candidacy: 1, reason: "stream broke", trouble: nil, now: 1500)
        #expect(ended.count == 3)
        #expect(ended.first == .post(.leaseLost("the campaign failed: stream broke")))
        var granting = Candidacy(ttlMilliseconds: 3000)
        _ = granting.begin()
        #expect(granting.failed(.grant, candidacy: 1, reason: "no quorum", trouble: "etcd has no quorum", now: 0)
                == [.post(.storeTrouble("etcd has no quorum")), .retry(candidacy: 2, afterMilliseconds: 200)])
        #expect(granting.granted(candidacy: 1, lease: 5, ttlMilliseconds: 3000, askedAt: 0) == [.revoke(lease: 5)],
                "a lease granted to an ended candidacy goes")
    }

    @Test("shutting down revokes the lease held, and ignores every answer after it")
    func shutDown() {
        var candidacy = Self.granted()
        #expect(candidacy.shutDown() == [.revoke(lease: 7)])
        #expect(candidacy.renewed(candidacy: 1, lease: 7, sentAt: 2000) == [])
        #expect(candidacy.retry(candidacy: 1) == [])
        #expect(candidacy.retry(candidacy: candidacy.number) == [], "nothing begins after a shutdown")
    }
}
