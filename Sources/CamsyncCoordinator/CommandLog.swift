import CamsyncEtcd

/// Where the loop makes the core's `commit`s durable and reads replays from: the SQLite journal
/// (embedded) or etcd (HA, `EtcdLogExecutor`). Called on the loop thread; every call blocks until done.
protocol CommandLog: AnyObject {
    /// One group commit, conditional on `leadership` in HA: returns once durable, throws when not
    /// (then nothing of the turn may be acknowledged).
    func append(_ entries: [JournalEntry], ifLeading leadership: EtcdLeadership?) throws
    func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]]
    func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?) throws
}

/// The embedded journal is this coordinator's own: no leadership to check.
extension Journal: CommandLog {
    func append(_ entries: [JournalEntry], ifLeading leadership: EtcdLeadership?) throws {
        try append(entries)
    }

    func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?) throws {
        try writeSnapshot(snapshot, keepingCommands: keep)
    }
}
