/// A lease granted by etcd: keys attached to it vanish when it expires or is revoked.
public struct EtcdLease: Sendable, Hashable {
    public var id: Int64
    /// The TTL etcd granted, in seconds (etcd raises small TTLs to its minimum: 1.5 × election timeout).
    public var ttlSeconds: Int64

    public init(id: Int64, ttlSeconds: Int64) {
        self.id = id
        self.ttlSeconds = ttlSeconds
    }
}
