import CamsyncEtcd
@testable import CamsyncCoordinator
import Testing
import ZeroMQ

/// The mailbox's two waits, which the HA supervisor's tasks park on: the log watch until the core
/// stops leading, the candidacy until the core resigns its leadership.
@Suite struct HAMailboxTests {
    @Test("the log watch waits while the core leads and goes on when it stops; a follower never waits")
    func untilCoreFollows() async throws {
        let mailbox = try HAMailbox()
        await mailbox.untilCoreFollows()   // not leading: returns at once
        mailbox.setCoreLeads(true)
        #expect(mailbox.coreLeads)
        let resumed = Locked(false)
        let waiter = Task {
            await mailbox.untilCoreFollows()
            resumed.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!resumed.withLock { $0 }, "parked while the core leads")
        mailbox.setCoreLeads(true)   // still leading: nobody goes on
        try await Task.sleep(for: .milliseconds(20))
        #expect(!resumed.withLock { $0 })
        mailbox.setCoreLeads(false)
        await waiter.value
        #expect(resumed.withLock { $0 } && !mailbox.coreLeads)
    }

    @Test("a parked log watch returns when its task is cancelled, and the core's later changes find nobody waiting")
    func cancelledWaitReturns() async throws {
        let mailbox = try HAMailbox()
        mailbox.setCoreLeads(true)
        let waiter = Task { await mailbox.untilCoreFollows() }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await waiter.value
        mailbox.setCoreLeads(false)   // resumes nothing twice (a double resume would trap)
        #expect(!mailbox.coreLeads)
    }

    @Test("a resignation wait goes on when that term or a later one is resigned, not an earlier one")
    func resignation() async throws {
        let mailbox = try HAMailbox()
        let leadership = EtcdLeadership(election: "e", key: "e/1", term: 5, lease: 1)
        let done = Locked(false)
        let waiter = Task {
            await mailbox.resignation(of: leadership)
            done.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(20))
        mailbox.resign(EtcdLeadership(election: "e", key: "e/0", term: 4, lease: 1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(!done.withLock { $0 }, "an earlier term's resignation is not this one")
        mailbox.resign(EtcdLeadership(election: "e", key: "e/2", term: 6, lease: 1))
        await waiter.value
        #expect(done.withLock { $0 })
        await mailbox.resignation(of: leadership)   // already resigned: returns at once
    }
}
