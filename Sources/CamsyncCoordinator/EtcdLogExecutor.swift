import CamsyncEtcd
import CamsyncRuntime

/// The HA loop's command log (SPEC K6): `EtcdCommandLog` driven from the loop thread. Every write is
/// conditional on the leadership the core names in its action (none: refused). Commits and snapshots
/// run as tasks, several at once (the pipeline); reads block the calling thread.
final class EtcdLogExecutor: CommandLog {
    let log: EtcdCommandLog

    init(log: EtcdCommandLog) { self.log = log }

    func submit(_ commit: TurnCommit, answer: @escaping @Sendable (LogAnswer) -> Void) {
        let log = self.log
        Task {
            do {
                try await log.append(commit.entries, ifLeading: try Self.required(commit.leadership), follows: commit.follows)
                answer(.committed(commit.id))
            } catch {
                answer(.failed(commit.id, StoreFailure(error)))
            }
        }
    }

    func submit(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?,
                answer: @escaping @Sendable (LogAnswer) -> Void) {
        let log = self.log
        Task {
            do {
                try await log.writeSnapshot(snapshot, keepingCommands: keep, ifLeading: try Self.required(leadership))
            } catch {
                answer(.snapshotFailed(StoreFailure(error)))
            }
        }
    }

    func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]] {
        let log = self.log
        return try Blocking.run { try await log.batches(after: sequence, limit: limit) }
    }

    /// The newest snapshot and every logged command after it (a standby rebuilding).
    func recover() throws -> (snapshot: JournalSnapshot?, entries: [JournalEntry]) {
        let log = self.log
        return try Blocking.run {
            let snapshot = try await log.latestSnapshot()
            return (snapshot, try await log.entries(after: 0))
        }
    }

    func entries(after sequence: UInt64) throws -> [JournalEntry] {
        let log = self.log
        return try Blocking.run { try await log.entries(after: sequence) }
    }

    private static func required(_ leadership: EtcdLeadership?) throws -> EtcdLeadership {
        guard let leadership else { throw EtcdError(.notLeader, "this coordinator does not lead") }
        return leadership
    }
}
