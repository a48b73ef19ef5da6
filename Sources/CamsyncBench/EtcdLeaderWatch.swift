import CamsyncEtcd
import CamsyncRuntime
import ZeroMQ
import CamsyncEtcdModel

/// The failover floor as etcd itself shows it: a task observing the coordinators' election (the
/// v3election `observe` stream) and noting when each new leader term is announced. After a leader's
/// kill -9 its key goes only when its lease expires, so this is lease expiry + etcd's hand-over,
/// seen by a client in the bench process.
final class EtcdLeaderWatch: Sendable {
    private let announced = Locked<[(term: Int64, at: UInt64)]>([])
    private let task: Task<Void, Never>

    init(endpoints: [EtcdEndpoint], settings: EtcdClient.Settings, election: String) {
        let announced = self.announced
        task = Task {
            while !Task.isCancelled {
                try? await EtcdClient.with(endpoints: endpoints, settings: settings) { client in
                    try await client.observe(election) { leader in
                        announced.withLock { $0.append((leader.term, Clock.monotonicNanoseconds())) }
                        return !Task.isCancelled
                    }
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// When (monotonic ns) a leader with a term above `term` was first announced, if it was.
    func firstLeader(after term: UInt64) -> UInt64? {
        announced.withLock { list in list.first { $0.term > Int64(term) }?.at }
    }

    /// Cancels the observation (not waited for: it ends by itself once etcd is stopped, at the latest).
    func stop() { task.cancel() }
}
