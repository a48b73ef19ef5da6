public import NIOCore

/// A task executor (SE-0417) that runs a task's jobs on one NIO event loop. A task that prefers it
/// and talks to etcd over a gRPC connection on the same loop writes its request and resumes with the
/// answer on that thread: the answer does not wake a thread of the cooperative pool first.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
