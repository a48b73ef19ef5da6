import Foundation
public import Testing
import Synchronization

/// A suite trait for suites that start clusters of processes: etcd members, coordinators and nodes,
/// a browser, a soak. Such a suite first takes one of a few slots shared by the whole test process
/// (every test target runs in one process), runs all its tests, and gives the slot back.
///
/// Without it, every suite marked `.ownThreads` ran at once: thirty clusters on two cores pushed the
/// load average to 15, and whichever test waited on a heartbeat or a lease at that moment failed.
/// The suite's own parallelism is now bounded; what is left of the load is the system's own work.
/// The slot is taken around the whole suite, not each test: a test's time limit starts after the
/// slot is held, so waiting for one never counts against it.
///
/// `CAMSYNC_TEST_CLUSTERS` sets the number of slots (default 3: the chain of etcd suites, which
/// holds one from its first suite to its last, and two for the rest).
public struct ClusterSlotTrait: SuiteTrait, TestScoping {
    /// Whether this suite takes its slot ahead of those already waiting (the longest chain of the
    /// run, so that the run's length is not that chain's plus its waits).
    public var ahead = false
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A suite nested in another that holds a slot runs in that slot.
        guard !ClusterSlots.held else { return try await function() }
        await ClusterSlots.shared.acquire(ahead: ahead)
        defer { ClusterSlots.shared.release() }
        try await ClusterSlots.$held.withValue(true) { try await function() }
    }
}

extension Trait where Self == ClusterSlotTrait {
    /// Takes one of the process-wide cluster slots around the suite (see `ClusterSlotTrait`).
    public static var clusterSlot: Self { Self() }

    /// The same, taken ahead of the suites already waiting.
    public static func clusterSlot(ahead: Bool) -> Self { Self(ahead: ahead) }
}

/// A counting semaphore whose waiters suspend (they do not hold a thread) and are served in order.
public final class ClusterSlots: Sendable {
    public static let shared = ClusterSlots(
        capacity: Int(ProcessInfo.processInfo.environment["CAMSYNC_TEST_CLUSTERS"] ?? "").flatMap { $0 > 0 ? $0 : nil } ?? 3)

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>
    public let capacity: Int
    /// Whether the current task holds a slot.
    @TaskLocal static var held = false

    public init(capacity: Int) {
        self.capacity = capacity
        state = Mutex(State(free: capacity))
    }

    public func acquire(ahead: Bool = false) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.free > 0 && state.waiting.isEmpty {
                    state.free -= 1
                    return true
                }
                if ahead { state.waiting.insert(continuation, at: 0) } else { state.waiting.append(continuation) }
                return false
            }
            if granted { continuation.resume() }
        }
    }

    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                precondition(state.free <= capacity, "a cluster slot was released twice")
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()   // the slot passes straight to the first waiter
    }

    /// Slots not held now, and tasks waiting for one (for tests of the semaphore itself).
    public var available: Int { state.withLock { $0.free } }
    public var waiting: Int { state.withLock { $0.waiting.count } }
}
