import Foundation
public import Testing

/// A test trait for tests whose bodies block — on processes, sockets, `usleep`, joins — for seconds:
/// every job of the test's task runs on a thread of its own instead of one of the cooperative
/// pool's (two on this 2-core machine).
///
/// Without it a blocking body holds a pool thread for its whole run; two such tests at once starve
/// every other test in the process, including the `await`s that wait for etcd's health, and whole
/// batches of tests then finish at the same instant or time out (seen in fresh-clone CI runs). The
/// body still runs in the test's own task, so its `#expect`s are attributed to the test, and the
/// suite's time limit still fires: its timer is not behind the blocked body.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs each test of the suite on threads of its own (see `OwnThreadsTrait`).
    public static var ownThreads: Self { Self() }
}

/// A task executor that runs each job it is given on a new thread. A blocking job then never holds a
/// thread anything else waits for; a job is a stretch of a task between two suspensions, so a test
/// that blocks rather than awaits makes a few of them.
public final class ThreadPerJobExecutor: TaskExecutor {
    public static let shared = ThreadPerJobExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
