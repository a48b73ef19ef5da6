import CamsyncTestSupport
import Foundation
import Testing

/// The trait every blocking suite here carries: its tests' jobs run on threads of their own.
@Suite(.ownThreads) struct OwnThreadsTests {
    @Test("more tasks of one test block at once than the cooperative pool has threads, and all of them meet")
    func moreBlockedTasksThanThePoolHasThreads() async {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let meeting = Meeting(expected: count)
        // On the cooperative pool only `activeProcessorCount` of them could run; they would wait out
        // the deadline and not meet.
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count { group.addTask { meeting.arriveAndWait(deadline: Date() + 20) } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(met == count)
    }
}

/// Blocks each arriving thread until `expected` have arrived or the deadline passes.
private final class Meeting: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private let expected: Int

    init(expected: Int) { self.expected = expected }

    func arriveAndWait(deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        while arrived < expected { if !condition.wait(until: deadline) { return false } }
        return true
    }
}
