import Testing
@testable import camsync

/// `make run-ha` narrates the failover as it happens: a standby's suspicion of the leader's silent
/// pulse (about 400 ms), not the lease's expiry (2 s), unless nobody could suspect it.
@Suite struct DemoNarrationTests {
    static func failover(_ takeover: DemoCommand.Takeover) -> DemoCommand.Failover {
        .init(killed: "c1", leader: "c2", millisecondsToFirstAck: 431, camerasKept: true, detail: [], takeover: takeover)
    }

    @Test("before the kill: the pulse, the suspicion window and the revocation, the lease only as what is not waited for")
    func plan() {
        let plan = DemoCommand.takeoverPlan(killed: "c1", leaseSeconds: 2)
        #expect(plan == "The standbys hear c1's pulse every 50 ms; one that hears nothing for 400 ms revokes c1's lease on etcd, "
                + "and a standby leads without waiting for the lease to expire (2 s).")
        #expect(!plan.contains("when its lease on etcd expires"))
    }

    @Test("after it: what the survivors' logs say happened")
    func happened() {
        #expect(DemoCommand.takeoverNarration(Self.failover(.suspicion(by: "c3", silentMilliseconds: 412)), leaseSeconds: 2)
                == "c3 stopped hearing c1's pulse (silent 412 ms) and revoked its lease, without waiting for it to expire (2 s); "
                + "c2 won the election, read the log to its end and leads now. The next action was acknowledged 431 ms after the kill.")
        #expect(DemoCommand.takeoverNarration(Self.failover(.leaseExpiry), leaseSeconds: 2)
                .hasPrefix("c1's lease expired (2 s): no standby had heard its pulse to suspect it; c2 won the election"))
    }
}
