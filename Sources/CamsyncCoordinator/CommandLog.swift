/// Where the loop makes the core's `append`s durable and reads replays from: the SQLite journal
/// (embedded) or etcd (HA, `EtcdLogExecutor`). Called on the loop thread; every call blocks until done.
protocol CommandLog: AnyObject {
    /// One group commit: returns once durable, throws when not (then nothing of the turn may be acknowledged).
    func append(_ entries: [JournalEntry]) throws
    func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]]
    func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64) throws
}

extension Journal: CommandLog {}
