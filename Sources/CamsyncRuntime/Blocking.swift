import Dispatch
import Foundation

/// Runs async work (the etcd client) from a plain thread that may block — the coordinator's loop
/// thread, the soak driver: the work runs as a task, the thread waits for its result.
/// Never call this from a task (it would hold a thread of the cooperative pool).
public enum Blocking {
    public static func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let box = ResultBox<Value>()
        Task {
            do {
                box.finish(.success(try await operation()))
            } catch {
                box.finish(.failure(error))
            }
        }
        return try box.wait().get()
    }

    private final class ResultBox<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<Value, any Error>?

        func finish(_ result: Result<Value, any Error>) {
            lock.withLock { self.result = result }
            done.signal()
        }

        func wait() -> Result<Value, any Error> {
            done.wait()
            return lock.withLock { result! }
        }
    }
}
