import CamsyncEtcd
import CamsyncProcessLab
import CamsyncTestSupport
import Testing

/// Every test against a live etcd cluster, one at a time (each starts its own 3 members).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)),
       .enabled(if: EtcdCluster.isAvailable, Comment(rawValue: EtcdCluster.unavailableMessage)))
struct LiveEtcdTests {}

/// Starts a cluster, runs `body` with it and a client of all its members, always stops it.
func withEtcdCluster<R: Sendable>(
    settings: EtcdClient.Settings = EtcdClient.Settings(requestTimeout: .seconds(1)),
    _ body: (EtcdCluster, EtcdClient) async throws -> R
) async throws -> R {
    let cluster = try await EtcdCluster.start()
    defer { cluster.stop() }
    var settings = settings
    settings.tls = try cluster.clientSettings().tls
    return try await EtcdClient.with(endpoints: cluster.endpoints, settings: settings) { client in
        try await body(cluster, client)
    }
}

/// Retries `operation` until it succeeds or `timeout` passes (then rethrows its last error).
func eventually<R>(timeout: Duration = .seconds(15), _ operation: () async throws -> R) async throws -> R {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        do { return try await operation() } catch {
            if clock.now >= deadline { throw error }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// The value of `task`, or a `.timedOut` error after `timeout` (the task is then cancelled).
func value<T: Sendable>(of task: Task<T, any Error>, within timeout: Duration = .seconds(20)) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw EtcdError(.timedOut, "test: the task did not finish within \(timeout)")
        }
        return value
    }
}

/// Waits until `condition` holds, for at most `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws {
    try await eventually(timeout: timeout) {
        guard try await condition() else { throw EtcdError(.timedOut, "test: still waiting for \(what)") }
    }
}

/// The `EtcdError` code `operation` throws, or nil when it succeeds.
func etcdErrorCode(_ operation: () async throws -> Void) async -> EtcdError.Code? {
    do {
        try await operation()
        return nil
    } catch let error as EtcdError {
        return error.code
    } catch {
        Issue.record("not an EtcdError: \(error)")
        return nil
    }
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}
