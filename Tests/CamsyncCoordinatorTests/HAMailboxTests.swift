import CamsyncEtcd
@testable import CamsyncCoordinator
import Testing
import ZeroMQ
import CamsyncEtcdModel

/// The mailbox's two waits, which the HA supervisor's tasks park on: the log watch until the core
/// stops leading, the candidacy until the core resigns its leadership. A test knows a task has parked
/// by the mailbox's count of parked tasks (a parked task is resumed only by taking it out of that list),
/// never by sleeping.
@Suite struct HAMailboxTests {
    /// Waits until `count` tasks are parked (each waiter parks once; the bound is generous).
    static func parked(_ count: Int, _ read: () -> Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while read() < count {
            #expect(ContinuousClock.now < deadline, "a task parked within 10 s")
            if ContinuousClock.now >= deadline { return }
            await Task.yield()
        }
    }

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
        try await Self.parked(1) { mailbox.parkedWatches }
        #expect(!resumed.withLock { $0 }, "parked while the core leads")
        mailbox.setCoreLeads(true)   // still leading: nobody goes on (a resume would take it out of the list)
        #expect(mailbox.parkedWatches == 1)
        mailbox.setCoreLeads(false)
        await waiter.value
        #expect(resumed.withLock { $0 } && !mailbox.coreLeads)
    }

    @Test("a parked log watch returns when its task is cancelled, and the core's later changes find nobody waiting")
    func cancelledWaitReturns() async throws {
        let mailbox = try HAMailbox()
        mailbox.setCoreLeads(true)
        let waiter = Task { await mailbox.untilCoreFollows() }
        try await Self.parked(1) { mailbox.parkedWatches }
        waiter.cancel()
        await waiter.value
        #expect(mailbox.parkedWatches == 0, "the cancelled wait left the list")
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
        try await Self.parked(1) { mailbox.parkedResignations }
        mailbox.resign(EtcdLeadership(election: "e", key: "e/0", term: 4, lease: 1))
        #expect(mailbox.parkedResignations == 1, "an earlier term's resignation is not this one")
        #expect(!done.withLock { $0 })
        mailbox.resign(EtcdLeadership(election: "e", key: "e/2", term: 6, lease: 1))
        await waiter.value
        #expect(done.withLock { $0 })
        await mailbox.resignation(of: leadership)   // already resigned: returns at once
    }
}
