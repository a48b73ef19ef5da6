/// What talking to etcd can run into: a stable code and a sentence (with the member where one
/// answered). `code` is what callers branch on; `message` is for people.
public struct EtcdError: Error, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// No member could be reached (connection refused, reset, or no endpoints).
        case unavailable
        /// The members reached have no raft leader: the cluster has lost quorum. Nothing was written.
        case noQuorum
        /// The request ran out of time (our deadline or etcd's own); a write's outcome is unknown.
        case timedOut
        /// A leadership-conditional write found the leader key gone or re-created: this process
        /// is no longer the leader and must stop acting as one. Nothing was written.
        case notLeader
        /// A conditional write found a key it requires missing while the leadership holds (a
        /// pipelined turn reached etcd before the turn it follows). Nothing was written.
        case outOfOrder
        /// The requested revision has been compacted away; `compactRevision` is the oldest kept.
        case compacted
        /// The lease does not exist any more (expired or revoked).
        case leaseExpired
        /// etcd refused this client (auth on): its user (the certificate's common name) does not
        /// exist, or its role does not allow the keys asked for. Nothing was read or written.
        case denied
        /// etcd refused the request itself (bad argument, too many operations in a txn, …).
        case rejected
        /// etcd answered something this client does not understand.
        case protocolViolation
    }

    public var code: Code
    public var message: String
    /// The member that answered, as `host:port`, when one did.
    public var member: String?
    /// For `.compacted`: the oldest revision still available.
    public var compactRevision: Int64?

    public init(_ code: Code, _ message: String, member: String? = nil, compactRevision: Int64? = nil) {
        self.code = code
        self.message = message
        self.member = member
        self.compactRevision = compactRevision
    }

    public var description: String {
        "etcd \(code.rawValue): \(message)" + (member.map { " (member \($0))" } ?? "")
    }

    /// Errors that say "try another member": the one asked cannot serve, and nothing was applied.
    var suggestsFailover: Bool { code == .unavailable || code == .noQuorum }
}
