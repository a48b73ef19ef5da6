import Foundation
import GRPCCore
public import CamsyncEtcdModel

/// Leadership through etcd's v3election service (the server side of `concurrency.Election`):
/// each candidate puts `election/<lease hex>` attached to its lease; the key with the lowest
/// create revision leads. Losing the lease (expiry, revoke) deletes the key and hands over.
extension EtcdClient {
    /// Waits until this candidate leads `election`, then returns its leadership. `value` is
    /// what observers see (e.g. the leader's command endpoint). Keep `lease` alive meanwhile
    /// (`keepAlive`); cancelling the calling task withdraws the candidacy.
    public func campaign(_ election: String, lease: EtcdLease, value: [UInt8]) async throws -> EtcdLeadership {
        let request = V3electionpb_CampaignRequest.with {
            $0.name = Data(election.utf8)
            $0.lease = lease.id
            $0.value = Data(value)
        }
        let response = try await call("campaign \(election)", retry: .idempotent) { member in
            try await member.election.campaign(request, metadata: metadata, options: streamOptions)
        }
        let leader = response.leader
        return EtcdLeadership(election: election, key: String(decoding: leader.key, as: UTF8.self),
                              term: leader.rev, lease: leader.lease)
    }

    /// The current leader of `election`, or nil when nobody leads.
    public func leader(_ election: String) async throws -> EtcdLeader? {
        let request = V3electionpb_LeaderRequest.with { $0.name = Data(election.utf8) }
        do {
            let response = try await call("leader of \(election)", retry: .idempotent) { member in
                try await member.election.leader(request, metadata: metadata, options: unaryOptions)
            }
            return EtcdLeader(response.kv)
        } catch let error as EtcdError where error.isNoElectionLeader {
            return nil
        }
    }

    /// Calls `body` with the leader of `election` and again at every change of leader, until
    /// `body` returns false or the task is cancelled. Moves to another member when one fails.
    public func observe(_ election: String, _ body: @escaping @Sendable (EtcdLeader) async throws -> Bool) async throws {
        let request = V3electionpb_LeaderRequest.with { $0.name = Data(election.utf8) }
        while true {
            let stopped = try await call("observe \(election)", retry: .idempotent) { member in
                try await member.election.observe(request, metadata: metadata, options: streamOptions) { response in
                    for try await message in response.messages {
                        if try await !body(EtcdLeader(message.kv)) { return true }
                    }
                    return false
                }
            }
            if stopped { return }
        }
    }

    /// Gives up leadership at once (deletes the leader key; the next candidate takes over).
    public func resign(_ leadership: EtcdLeadership) async throws {
        let request = V3electionpb_ResignRequest.with { $0.leader = leadership.wire }
        _ = try await call("resign \(leadership.election)", retry: .write) { member in
            try await member.election.resign(request, metadata: metadata, options: unaryOptions)
        }
    }
}

extension EtcdLeadership {
    var wire: V3electionpb_LeaderKey {
        .with {
            $0.name = Data(election.utf8)
            $0.key = Data(key.utf8)
            $0.rev = term
            $0.lease = lease
        }
    }
}

extension EtcdLeader {
    init(_ kv: Mvccpb_KeyValue) {
        self.init(key: String(decoding: kv.key, as: UTF8.self), value: [UInt8](kv.value),
                  term: kv.createRevision, lease: kv.lease)
    }
}

extension EtcdError {
    /// etcd's "election: no leader" (nobody campaigns), which arrives as an unknown-code error.
    var isNoElectionLeader: Bool { code == .rejected && message.contains("election: no leader") }
}
