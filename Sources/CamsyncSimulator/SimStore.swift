import CamsyncCoordinator
import CamsyncEtcd
import CamsyncWire
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The consensus store as the coordinators use etcd (SPEC K6), on the simulated clock: one logical
/// key space with a revision counter; leases whose TTL etcd raises to its minimum and which expire
/// only at the lessor's 500 ms checks; the election API (a candidate's key under the election
/// prefix, created with its lease; the leader is the oldest key; the term is its create revision);
/// writes conditional on a leader key; the command log and its snapshot; watches of the log.
/// Member loss is modelled as the whole store being unavailable (no quorum) or slow.
struct SimStore {
    /// The election's name (the prefix of the candidates' keys).
    static let election = "/camsync/leader"
    struct Lease {
        var ttl: Int64
        var expiresAt: Int64
    }
    struct Candidate {
        var coordinator: String
        var lease: Int64
        var createRevision: Int64
        var address: Camsync_V1_CoordinatorAddress
    }

    struct LoggedTurn {
        var lastSequence: UInt64
        var batches: [LoggedBatch]
    }

    static let lessorTick: Int64 = 500
    /// etcd's minimum TTL with its default election timeout (1.5 × 1 s, rounded up).
    static let minimumTTL: Int64 = 2_000

    private(set) var revision: Int64 = 1
    private(set) var leases: [Int64: Lease] = [:]
    private var nextLease: Int64 = 0x1000
    /// Election keys by lease (one candidacy per lease).
    private(set) var candidates: [Int64: Candidate] = [:]
    /// The log: one turn per put, in order of their last sequence, each batch as it was published
    /// (its bytes, and its fields but its events, as a coordinator reads it: `LoggedBatch`), so that
    /// reading the log encodes nothing again.
    private(set) var turns: [LoggedTurn] = []
    private(set) var snapshot: JournalSnapshot?
    /// No quorum: every request fails (after the request deadline).
    var available = true
    /// Extra latency of every request (a slow member, a slow disk).
    var slowBy: Int64 = 0

    /// The leader: the candidate with the oldest key.
    var leader: Candidate? { candidates.values.min { $0.createRevision < $1.createRevision } }

    mutating func grant(ttl: Int64, at now: Int64) -> Int64 {
        nextLease += 1
        let ttl = max(ttl, Self.minimumTTL)
        leases[nextLease] = Lease(ttl: ttl, expiresAt: now + ttl)
        return nextLease
    }

    /// Renews `lease`; false when it is gone.
    mutating func keepAlive(_ lease: Int64, at now: Int64) -> Bool {
        guard var held = leases[lease] else { return false }
        held.expiresAt = now + held.ttl
        leases[lease] = held
        return true
    }

    mutating func revoke(_ lease: Int64) {
        leases[lease] = nil
        candidates[lease] = nil
    }

    /// The lessor's check: leases past their expiry go, with their keys. Returns whether the leader changed.
    mutating func expireLeases(at now: Int64) -> Bool {
        let before = leader?.lease
        for (id, lease) in leases where lease.expiresAt <= now { revoke(id) }
        return leader?.lease != before
    }

    /// Puts the candidate's key (once per lease); the caller learns it won when it is the oldest.
    mutating func campaign(coordinator: String, lease: Int64, address: Camsync_V1_CoordinatorAddress) -> Bool {
        guard leases[lease] != nil else { return false }
        if candidates[lease] == nil {
            revision += 1
            candidates[lease] = Candidate(coordinator: coordinator, lease: lease, createRevision: revision, address: address)
        }
        return true
    }

    /// The leadership `lease` holds, if its key is the oldest.
    func leadership(of lease: Int64, election: String) -> EtcdLeadership? {
        guard let leader, leader.lease == lease else { return nil }
        return EtcdLeadership(election: election, key: "\(election)/\(String(lease, radix: 16))", term: leader.createRevision,
                              lease: lease)
    }

    /// Whether `leadership` still holds: its key exists with the same create revision.
    func holds(_ leadership: EtcdLeadership) -> Bool {
        candidates[leadership.lease]?.createRevision == leadership.term
    }

    /// One group commit, conditional on `leadership` and on the turn it `follows` being in the log.
    mutating func append(_ entries: [JournalEntry], ifLeading leadership: EtcdLeadership?,
                         follows: UInt64?) throws(StoreFailure) -> [LoggedBatch] {
        guard let leadership, holds(leadership) else { throw StoreFailure(.notLeader, "the leader key is gone") }
        if let follows, turnIndex(follows) == nil { throw StoreFailure(.outOfOrder, "turn \(follows) not in the log yet") }
        var turn = LoggedTurn(lastSequence: 0, batches: [])
        for entry in entries {
            guard let batch = try? LoggedBatch(encoded: entry.batch) else {
                throw StoreFailure(.unavailable, "entry \(entry.sequence) has no batch")
            }
            turn.batches.append(batch)
            turn.lastSequence = entry.sequence
        }
        revision += 1
        if let index = turnIndex(turn.lastSequence) {
            turns[index] = turn
        } else {
            turns.insert(turn, at: turns.firstIndex { $0.lastSequence > turn.lastSequence } ?? turns.endIndex)
        }
        return turn.batches
    }

    mutating func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64,
                                ifLeading leadership: EtcdLeadership?) throws(StoreFailure) {
        guard let leadership, holds(leadership) else { throw StoreFailure(.notLeader, "the leader key is gone") }
        guard turnIndex(snapshot.sequence) != nil else { throw StoreFailure(.outOfOrder, "turn \(snapshot.sequence) not in the log yet") }
        revision += 1
        self.snapshot = snapshot
        if snapshot.sequence > keep {
            let below = snapshot.sequence - keep + 1
            turns.removeAll { $0.lastSequence < below }
        }
    }

    /// Where the turn ending at `lastSequence` is in the log, if it is there.
    private func turnIndex(_ lastSequence: UInt64) -> Int? {
        turns.lastIndex { $0.lastSequence == lastSequence }
    }

    /// The published batches after `after` as a coordinator reads them from etcd, in order.
    func loggedBatches(after: UInt64) -> [LoggedBatch] {
        let first = turns.firstIndex { $0.lastSequence > after } ?? turns.endIndex
        return turns[first...].flatMap { $0.batches.filter { $0.batch.sequence > after } }
    }

    func entries(after: UInt64) -> [JournalEntry] {
        loggedBatches(after: after).map(JournalEntry.init(logged:))
    }
}
