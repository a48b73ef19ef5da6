import Foundation

extension EtcdClient {
    /// Applies `writes` in one transaction if, and only if, `leadership` still holds: the
    /// leader key exists with the term as its create revision. This is the group-commit write of
    /// a leader; a deposed leader (its key deleted or re-created by another campaign) gets
    /// `.notLeader` and nothing is written. Returns the store revision of the transaction.
    ///
    /// etcd limits a transaction to `--max-txn-ops` operations (128 by default).
    @discardableResult
    public func commit(_ writes: [EtcdWrite], ifLeading leadership: EtcdLeadership) async throws -> Int64 {
        let request = Etcdserverpb_TxnRequest.with {
            $0.compare = [.with {
                $0.key = Data(leadership.key.utf8)
                $0.target = .create
                $0.result = .equal
                $0.createRevision = leadership.term
            }]
            $0.success = writes.map(\.operation)
        }
        let response = try await call("commit of \(writes.count) writes", retry: .write) { member in
            try await member.kv.txn(request, metadata: metadata, options: unaryOptions)
        }
        guard response.succeeded else {
            throw EtcdError(.notLeader, "commit refused: the leader key \(leadership.key) no longer exists with term \(leadership.term)")
        }
        return response.header.revision
    }
}

extension EtcdWrite {
    var operation: Etcdserverpb_RequestOp {
        switch self {
        case .put(let key, let value):
            .with { $0.requestPut = .with { $0.key = Data(key.utf8); $0.value = Data(value) } }
        case .delete(let key):
            .with { $0.requestDeleteRange = .with { $0.key = Data(key.utf8) } }
        case .deleteRange(let start, let end):
            .with { $0.requestDeleteRange = .with { $0.key = Data(start.utf8); $0.rangeEnd = Data(end.utf8) } }
        }
    }
}
