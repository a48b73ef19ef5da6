import CamsyncTestSupport
import ZeroMQ
import Testing

/// The semaphore behind `.clusterSlot`: at most its capacity held at once, waiters served in order,
/// a waiter `ahead` served before those already waiting.
@Suite struct ClusterSlotsTests {
    @Test("at most `capacity` slots are held; a release passes the slot to the first waiter, one taken ahead first")
    func slots() async throws {
        let slots = ClusterSlots(capacity: 2)
        await slots.acquire()
        await slots.acquire()
        #expect(slots.available == 0)
        let order = Locked<[String]>([])
        @Sendable func waiter(_ name: String, ahead: Bool = false) -> Task<Void, Never> {
            Task { [slots, order] in
                await slots.acquire(ahead: ahead)
                order.withLock { $0.append(name) }
            }
        }
        let first = waiter("first")
        while slots.waiting < 1 { await Task.yield() }
        let second = waiter("second")
        while slots.waiting < 2 { await Task.yield() }
        let urgent = waiter("ahead", ahead: true)
        while slots.waiting < 3 { await Task.yield() }
        #expect(order.withLock { $0 }.isEmpty, "nobody gets a slot while both are held")
        slots.release()
        await urgent.value
        slots.release()
        await first.value
        slots.release()
        await second.value
        #expect(order.withLock { $0 } == ["ahead", "first", "second"])
        #expect(slots.available == 0)
        for _ in 0..<2 { slots.release() }
        #expect(slots.available == 2)
    }
}
