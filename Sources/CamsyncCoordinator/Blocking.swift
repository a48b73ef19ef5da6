import Dispatch
import ZeroMQ

/// Runs async work (the etcd client) from the coordinator's loop thread, which is a plain thread
/// that owns sockets and may block: the work runs as a task, the thread waits for its result.
/// Never call this from a task (it would hold a thread of the cooperative pool).
enum Blocking {
    static func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let result = Locked<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let value = try await operation()
                result.withLock { $0 = .success(value) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
