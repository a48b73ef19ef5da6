public import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
public import CamsyncCoordinatorCore
public import CamsyncEtcdModel

/// The command log on etcd (SPEC K6): what an HA leader's shell does with the core's `append`,
/// `serveReplay` and `writeSnapshot` actions instead of the SQLite journal. Building block of the
/// HA coordinator (`EtcdLogExecutor`; docs/OPERATIONS.md "High availability").
///
/// Layout under `prefix`:
/// - `log/<last sequence, 20 digits>`: one key per group commit, a `Replay` message holding the
///   turn's batches as published, deflated (`LogTurn`; a turn is one put, whatever its size: etcd
///   allows 128 operations per transaction);
/// - `snapshot`: the newest state snapshot, a `Snapshot` message (sequence, term, state), deflated (`LogSnapshot`).
///
/// Every write is one transaction conditional on `leadership`: a deposed leader writes nothing.
public struct EtcdCommandLog: Sendable {
    public let client: EtcdClient
    public let prefix: String

    public init(client: EtcdClient, prefix: String) {
        self.client = client
        self.prefix = prefix
    }

    var logPrefix: String { "\(prefix)/log/" }
    var snapshotKey: String { "\(prefix)/snapshot" }

    /// The key of the turn that ends at `sequence`.
    public func logKey(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return logPrefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// Makes one group commit durable, if and only if `leadership` still holds (`EtcdError.notLeader`
    /// otherwise) and, for a pipelined turn, the turn it `follows` is in the log (`EtcdError.outOfOrder`
    /// otherwise: nothing written, send it again). Every entry must carry its batch. The value is a
    /// `Replay` built from the batches as serialized for publication (no decode, no re-encode). A
    /// turn larger than `maximumPutBytes` goes as several puts, one transaction each, in order, each
    /// requiring the one before (etcd refuses requests over 1.5 MiB); if one fails, the earlier ones
    /// are durable but unacknowledged, like a write whose outcome is unknown.
    public func append(_ entries: [JournalEntry], ifLeading leadership: EtcdLeadership, follows: UInt64? = nil) async throws {
        var value: [UInt8] = []
        var last: UInt64 = 0
        var previous = follows
        for entry in entries {
            let batch = entry.batch
            guard !batch.isEmpty else { throw EtcdCommandLogError("entry \(entry.sequence) has no batch") }
            if value.count + batch.count > Self.maximumPutBytes, last != 0 {
                try await put(value, through: last, ifLeading: leadership, follows: previous)
                previous = last
                value.removeAll(keepingCapacity: true)
                last = 0
            }
            ProtobufWire.append(WireField(number: 1, value: .bytes(batch, nested: nil)), to: &value)
            last = entry.sequence
        }
        if last != 0 { try await put(value, through: last, ifLeading: leadership, follows: previous) }
    }

    /// Most bytes of batches in one put (etcd's default request limit is 1.5 MiB).
    public static let maximumPutBytes = 1 << 20

    /// Log keys per range read. Each holds up to `maximumPutBytes`, so a reply holds up to 64 MiB:
    /// the etcd client accepts up to `EtcdClient.maximumMessageBytes` (gRPC's default 4 MiB did not
    /// hold a loaded leader's 64 turns, and a standby's rebuild then failed for ever).
    static let keysPerRead: Int64 = 64

    /// One log key: `batches` (field 1 of `Replay`, already encoded) and `last_sequence` (field 2), deflated.
    private func put(_ batches: [UInt8], through last: UInt64, ifLeading leadership: EtcdLeadership, follows: UInt64?) async throws {
        var replay = batches
        ProtobufWire.append(WireField(number: 2, value: .varint(last)), to: &replay)
        try await client.commit([.put(key: logKey(last), value: LogTurn.value(replay: replay))], ifLeading: leadership,
                                requiring: follows.map { [logKey($0)] } ?? [])
    }

    /// The published batches after `after`, at most `limit`, in sequence order, as they were
    /// published (for `CoordinatorCore.replayReply`; each is decoded once to read its sequence,
    /// never encoded again).
    public func batches(after: UInt64, limit: Int) async throws -> [[UInt8]] {
        var batches: [[UInt8]] = []
        try await forEachTurn(after: after) { turn in
            for bytes in try LoggedBatch.encodedBatches(ofTurn: turn) where batches.count < limit {
                if try Camsync_V1_EventBatch(serializedBytes: bytes).sequence > after { batches.append(bytes) }
            }
            return batches.count < limit
        }
        return batches
    }

    /// Every logged batch after `after`, decoded once (a standby rebuilding or catching up).
    public func loggedBatches(after: UInt64) async throws -> [LoggedBatch] {
        var batches: [LoggedBatch] = []
        try await forEachTurn(after: after) { turn in
            for logged in try LoggedBatch.turn(turn) where logged.batch.sequence > after { batches.append(logged) }
            return true
        }
        return batches
    }

    /// Every logged command after `after`, as journal entries (the soak's history check).
    public func entries(after: UInt64) async throws -> [JournalEntry] {
        try await loggedBatches(after: after).map { JournalEntry(publishedBatch: $0.batch, encoded: $0.encoded) }
    }

    /// The whole log as a reader from outside the cluster takes it (the soak's history check): every
    /// command etcd still holds and the newest snapshot. While etcd's members have no raft leader or
    /// cannot be reached (electing one after a heal, or under load), it asks again, for up to `patience`.
    public func everything(patience: Duration) async throws -> (entries: [JournalEntry], snapshot: JournalSnapshot?) {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return (try await entries(after: 0), try await latestSnapshot())
            } catch let error as EtcdError where [.noQuorum, .unavailable, .timedOut].contains(error.code) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Calls `body` with each log turn (its value) that may hold batches after `after`, oldest first,
    /// a page of `keysPerRead` keys at a time, until it returns false or the log ends.
    private func forEachTurn(after: UInt64, _ body: ([UInt8]) throws -> Bool) async throws {
        var start = logKey(after + 1)
        while true {
            let page = try await client.range(from: start, inPrefix: logPrefix, limit: Self.keysPerRead)
            for keyValue in page.keyValues {
                guard try body(keyValue.value) else { return }
            }
            guard page.more, let lastKey = page.keyValues.last?.key else { return }
            start = lastKey + "\0"
        }
    }

    /// Writes `snapshot` and drops the log's turns that end more than `keep` commands before it (the
    /// K5 retry window stays), in one transaction conditional on `leadership` and on the turn that
    /// ends at `snapshot.sequence` being in the log (`EtcdError.outOfOrder` otherwise: the snapshot of
    /// a pipelined leader may reach etcd before that turn does).
    public func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64,
                              ifLeading leadership: EtcdLeadership) async throws {
        var message = Camsync_V1_Snapshot()
        message.sequence = snapshot.sequence
        message.term = snapshot.term
        message.state = try Camsync_V1_ClusterState(serializedBytes: snapshot.state)
        var writes: [EtcdWrite] = [.put(key: snapshotKey, value: LogSnapshot.value(message: try message.serializedBytes()))]
        if snapshot.sequence > keep {
            writes.append(.deleteRange(from: logPrefix, to: logKey(snapshot.sequence - keep + 1)))
        }
        try await client.commit(writes, ifLeading: leadership, requiring: snapshot.sequence > 0 ? [logKey(snapshot.sequence)] : [])
    }

    /// The newest snapshot, or nil.
    public func latestSnapshot() async throws -> JournalSnapshot? {
        guard let keyValue = try await client.get(snapshotKey) else { return nil }
        let message = try Camsync_V1_Snapshot(serializedBytes: try LogSnapshot.message(keyValue.value))
        return JournalSnapshot(sequence: message.sequence, term: message.term, state: try message.state.serializedBytes())
    }
}

/// A log record that cannot be written or read back.
public struct EtcdCommandLogError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
