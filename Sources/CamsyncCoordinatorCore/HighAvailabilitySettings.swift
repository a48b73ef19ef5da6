public import CamsyncEtcdModel
public import CamsyncWire

/// HA mode (SPEC K6): the command log and leadership live on etcd (docs/OPERATIONS.md "High
/// availability"). Every coordinator of a cluster uses the same `prefix` and the same etcd cluster.
public struct HighAvailabilitySettings: Sendable, Equatable {
    public var etcd: [EtcdEndpoint]
    /// This coordinator's name (unique in the cluster; shown to nodes and in NOT_LEADER errors).
    public var name: String
    /// Key prefix on etcd: `<prefix>/log/…`, `<prefix>/snapshot`, `<prefix>/leader/…` (the election).
    public var prefix: String
    /// Lease TTL in seconds (etcd raises it to its minimum, 1.5 × its election timeout): how long a
    /// dead leader keeps the leadership, so the main part of the failover time.
    public var leaseSeconds: Int64
    /// Deadline of each etcd request (a commit that takes longer fails: not acknowledged).
    public var requestTimeoutMilliseconds: Int64
    /// Endpoints as nodes reach them; empty: the first listed endpoint (`advertisedAddress`).
    public var advertisedCommandEndpoint: String
    public var advertisedEventEndpoint: String
    /// How often the leader publishes its pulse (a coordinator heartbeat under the `pulse` topic,
    /// which only standbys subscribe to).
    public var pulseMilliseconds: Int64
    /// A standby that has heard the leader's pulse in its term and then hears nothing for this long
    /// suspects it and revokes its lease (the next candidate wins at once, not at lease expiry); a
    /// leader that could not publish its pulse for this long steps down, since the standbys may have
    /// done so. 0: no suspicion (failover waits for the lease to expire). docs/OPERATIONS.md says
    /// how to size it against pauses.
    public var suspicionMilliseconds: Int64

    public init(etcd: [EtcdEndpoint], name: String, prefix: String = "/camsync", leaseSeconds: Int64 = 2,
                requestTimeoutMilliseconds: Int64 = 2_000, advertisedCommandEndpoint: String = "",
                advertisedEventEndpoint: String = "", pulseMilliseconds: Int64 = 50, suspicionMilliseconds: Int64 = 400) {
        self.etcd = etcd
        self.name = name
        self.prefix = prefix
        self.leaseSeconds = leaseSeconds
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        self.advertisedCommandEndpoint = advertisedCommandEndpoint
        self.advertisedEventEndpoint = advertisedEventEndpoint
        self.pulseMilliseconds = pulseMilliseconds
        self.suspicionMilliseconds = suspicionMilliseconds
    }

    /// Mutual TLS to etcd (the certificate's common name is this coordinator's etcd user); nil:
    /// plaintext, only when asked for explicitly (`--etcd-plaintext`), and the log warns.
    public var etcdTLS: EtcdClientTLS?

    /// The election's key prefix.
    public var election: String { "\(prefix)/leader" }
}
