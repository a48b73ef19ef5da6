import Dispatch
import Foundation
import ZeroMQ

/// The benchmarks are plain threads that own ZeroMQ sockets and block; the etcd client and
/// `EtcdCluster` are async. This runs async work as a task and blocks the calling thread until it
/// is done. Never call it from a task (it would hold a thread of the cooperative pool).
enum AsyncBridge {
    static func wait<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
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
