/// Leadership won in an etcd election (v3election API): the leader key, held by `lease`.
///
/// The term is the leader key's create revision. etcd revisions grow with every write to the
/// store, so a later leader always has a higher term, and two leaders never share one.
public struct EtcdLeadership: Sendable, Hashable {
    /// The election's name (the key prefix the candidates queue under).
    public var election: String
    /// This candidate's key (`election/<lease hex>`).
    public var key: String
    /// The leader key's create revision.
    public var term: Int64
    public var lease: Int64

    public init(election: String, key: String, term: Int64, lease: Int64) {
        self.election = election
        self.key = key
        self.term = term
        self.lease = lease
    }
}

/// The current leader of an election as anyone can observe it.
public struct EtcdLeader: Sendable, Equatable {
    public var key: String
    /// What the leader proclaimed (e.g. its command endpoint).
    public var value: [UInt8]
    /// The leader key's create revision (see `EtcdLeadership.term`).
    public var term: Int64
    public var lease: Int64

    public init(key: String, value: [UInt8], term: Int64, lease: Int64) {
        self.key = key
        self.value = value
        self.term = term
        self.lease = lease
    }
}
