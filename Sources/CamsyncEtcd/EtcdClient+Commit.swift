import Foundation
public import CamsyncEtcdModel

extension EtcdClient {
    /// Applies `writes` in one transaction if, and only if, `leadership` still holds: the
    /// leader key exists with the term as its create revision. This is the group-commit write of
    /// a leader; a deposed leader (its key deleted or re-created by another campaign) gets
    /// `.notLeader` and nothing is written. Returns the store revision of the transaction.
    ///
    /// `requiring`: keys that must exist too (a pipelined turn names the key of the turn before it).
    /// When one is missing but the leadership holds, the answer is `.outOfOrder`: nothing was
    /// written, and the same writes may be sent again once that key exists.
    ///
    /// etcd limits a transaction to `--max-txn-ops` operations (128 by default).
    @discardableResult
    public func commit(_ writes: [EtcdWrite], ifLeading leadership: EtcdLeadership, requiring keys: [String] = []) async throws -> Int64 {
        let leaderKey = Data(leadership.key.utf8)
        let request = Etcdserverpb_TxnRequest.with {
            $0.compare = [.with {
                $0.key = leaderKey
                $0.target = .create
                $0.result = .equal
                $0.createRevision = leadership.term
            }] + keys.map { key in
                .with {
                    $0.key = Data(key.utf8)
                    $0.target = .version
                    $0.result = .greater
                    $0.version = 0
                }
            }
            $0.success = writes.map(\.operation)
            // Refused: the leader key as it is now tells a lost leadership from a turn sent too early.
            if !keys.isEmpty { $0.failure = [.with { $0.requestRange = .with { $0.key = leaderKey } }] }
        }
        let response = try await call("commit of \(writes.count) writes", retry: .write) { member in
            try await member.kv.txn(request, metadata: metadata, options: unaryOptions)
        }
        guard response.succeeded else {
            let current = response.responses.first?.responseRange.kvs.first
            if !keys.isEmpty, current?.createRevision == leadership.term {
                throw EtcdError(.outOfOrder, "commit refused: \(keys.joined(separator: ", ")) not written yet")
            }
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
