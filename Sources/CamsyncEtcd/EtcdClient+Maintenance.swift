import GRPCCore

/// One etcd member's health as its Maintenance.Status RPC reports it (what `etcdctl endpoint status` prints).
public struct EtcdMemberStatus: Sendable, Equatable, Codable {
    public var endpoint: String
    /// The member's id (hex, as etcdctl prints it).
    public var memberID: String
    /// Whether this member is the raft leader.
    public var isLeader: Bool
    public var raftTerm: UInt64
    public var raftIndex: UInt64
    public var raftAppliedIndex: UInt64
    public var databaseSizeBytes: Int64
    public var version: String
    /// The alarms and errors the member reports, or why it could not be asked.
    public var errors: [String]
    /// False when the member did not answer (then only `endpoint` and `errors` are meaningful).
    public var reachable: Bool

    public init(endpoint: String, memberID: String = "", isLeader: Bool = false, raftTerm: UInt64 = 0, raftIndex: UInt64 = 0,
                raftAppliedIndex: UInt64 = 0, databaseSizeBytes: Int64 = 0, version: String = "", errors: [String] = [],
                reachable: Bool = true) {
        self.endpoint = endpoint
        self.memberID = memberID
        self.isLeader = isLeader
        self.raftTerm = raftTerm
        self.raftIndex = raftIndex
        self.raftAppliedIndex = raftAppliedIndex
        self.databaseSizeBytes = databaseSizeBytes
        self.version = version
        self.errors = errors
        self.reachable = reachable
    }
}

extension EtcdClient {
    /// Every member's own status (Maintenance.Status, asked of each member, not routed): a member that
    /// does not answer is listed unreachable with the reason. No "require leader" metadata: a member
    /// cut off from the quorum still says what it knows.
    public func memberStatuses() async -> [EtcdMemberStatus] {
        await withTaskGroup(of: (Int, EtcdMemberStatus).self) { group in
            for (index, member) in members.enumerated() {
                group.addTask {
                    do {
                        let response = try await member.maintenance.status(Etcdserverpb_StatusRequest(), options: self.unaryOptions)
                        return (index, EtcdMemberStatus(
                            endpoint: member.endpoint.description, memberID: String(response.header.memberID, radix: 16),
                            isLeader: response.leader != 0 && response.leader == response.header.memberID,
                            raftTerm: response.raftTerm, raftIndex: response.raftIndex, raftAppliedIndex: response.raftAppliedIndex,
                            databaseSizeBytes: response.dbSize, version: response.version, errors: response.errors))
                    } catch {
                        let reason = (try? EtcdError.classify(error, member: member.endpoint, what: "status")).map { "\($0)" } ?? "\(error)"
                        return (index, EtcdMemberStatus(endpoint: member.endpoint.description, errors: [reason], reachable: false))
                    }
                }
            }
            var statuses: [(Int, EtcdMemberStatus)] = []
            for await status in group { statuses.append(status) }
            return statuses.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
