import CamsyncEtcd
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// Where the loop makes the core's `commit`s and snapshots durable and reads replays from: the SQLite
/// journal (embedded, `JournalWriter`) or etcd (HA, `EtcdLogExecutor`). Writes and reads are started
/// from the loop thread and not awaited: the answer is posted back (`StoreAnswer`) and handed to the core.
protocol CommandLog: AnyObject, Sendable {
    /// Makes `commit` durable on the calling thread and returns the answer, when the log can do so
    /// without overtaking a write in flight (the journal while idle, `JournalWriter`); nil: `submit` it.
    func commitAtOnce(_ commit: TurnCommit) -> StoreAnswer?
    /// Starts one group commit (conditional on its leadership and on the turn it follows, in HA);
    /// `answer` is called once, on any thread, when it is durable or is not.
    func submit(_ commit: TurnCommit, answer: @escaping @Sendable (StoreAnswer) -> Void)
    /// Starts a snapshot write; `answer` is called only when it fails.
    func submit(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?,
                answer: @escaping @Sendable (StoreAnswer) -> Void)
    /// Starts a read of the log (`LogRead`): `answer` is called once, on any thread, with the answer
    /// the read names. Never blocks the calling thread (the loop's).
    func read(_ read: LogRead, answer: @escaping @Sendable (StoreAnswer) -> Void)
}
