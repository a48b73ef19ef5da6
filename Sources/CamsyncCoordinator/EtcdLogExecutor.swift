import CamsyncEtcd
import CamsyncRuntime

/// The HA loop's command log (SPEC K6): `EtcdCommandLog` driven from the loop thread. Every write is
/// conditional on the leadership the core names in its action (none: refused).
final class EtcdLogExecutor: CommandLog {
    let log: EtcdCommandLog

    init(log: EtcdCommandLog) { self.log = log }

    func append(_ entries: [JournalEntry], ifLeading leadership: EtcdLeadership?) throws {
        try append(entries, ifLeading: leadership, every: 1_000) {}
    }

    /// As `append`, calling `meanwhile` on this thread every `milliseconds` while etcd has not
    /// answered (the leader's pulse goes on while etcd is slow or electing its own leader).
    func append(_ entries: [JournalEntry], ifLeading leadership: EtcdLeadership?, every milliseconds: Int,
                meanwhile: () throws -> Void) throws {
        let leadership = try Self.required(leadership)
        let log = self.log
        try Blocking.run(every: milliseconds, meanwhile: meanwhile) { try await log.append(entries, ifLeading: leadership) }
    }

    func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]] {
        let log = self.log
        return try Blocking.run { try await log.batches(after: sequence, limit: limit) }
    }

    func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?) throws {
        let leadership = try Self.required(leadership)
        let log = self.log
        try Blocking.run { try await log.writeSnapshot(snapshot, keepingCommands: keep, ifLeading: leadership) }
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
