import GRDB
import Foundation
public import CamsyncCoordinatorCore

/// The coordinator's durable command log (K3): SQLite through GRDB in WAL mode.
/// Commands that arrive together are appended in one transaction (group commit). Snapshots live in
/// a database of their own, `snapshots.sqlite` beside `journal.sqlite`: writing one (megabytes with
/// thousands of nodes, and the checkpoint after it) then holds up no command's commit. Each database
/// is used by one thread at a time (GRDB's queue serializes whoever calls).
public final class Journal {
    private let database: DatabaseQueue?
    private let snapshots: DatabaseQueue?
    public let durability: JournalDurability

    /// The most commands one transaction of a snapshot's compaction deletes: commits wait for no more.
    static let compactionChunk = 1_000

    /// Opens (creating if needed) `journal.sqlite` and `snapshots.sqlite` in `directory`.
    public init(directory: String, durability: JournalDurability = .full) throws {
        self.durability = durability
        guard durability != .off else {
            database = nil
            snapshots = nil
            return
        }
        database = try Self.open(directory + "/journal.sqlite", durability: durability)
        try Self.migrator.migrate(database!)
        snapshots = try Self.open(directory + "/snapshots.sqlite", durability: durability)
        try Self.snapshotMigrator.migrate(snapshots!)
    }

    private static func open(_ path: String, durability: JournalDurability) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // After opening: GRDB's WAL set-up runs `PRAGMA synchronous = NORMAL` after `prepareDatabase`,
        // which would turn "full" into NORMAL (a commit not synced to disk). One connection: it stays.
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        }
        return queue
    }

    private static var snapshotMigrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createSnapshotTable)
        return migrator
    }

    /// The snapshots' table: in `snapshots.sqlite`, and in `journal.sqlite` as older coordinators made it.
    private static func createSnapshotTable(_ db: Database) throws {
        try db.create(table: "snapshot") { t in
            t.primaryKey("sequence", .integer)
            t.column("term", .integer).notNull()
            t.column("state", .blob).notNull()
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .integer).notNull()
            }
            try db.create(table: "command") { t in
                t.primaryKey("sequence", .integer)
                t.column("term", .integer).notNull()
                t.column("timeMs", .integer).notNull()
                t.column("node", .text).notNull()
                t.column("requestID", .integer).notNull()
                t.column("command", .blob).notNull()
            }
            try createSnapshotTable(db)
        }
        migrator.registerMigration("v2-batches") { db in
            try db.alter(table: "command") { t in t.add(column: "batch", .blob) }
        }
        return migrator
    }

    /// SQLite's `synchronous` setting as the connection runs it (2 = FULL, 1 = NORMAL), nil without a journal.
    public func synchronousSetting() throws -> Int? {
        try database?.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
    }

    /// Starts a new coordinator term: the stored term plus one, persisted before it is used.
    public func beginTerm() throws -> UInt64 {
        guard let database else { return 1 }
        return try database.write { db in
            let current = try UInt64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'term'") ?? 0
            let next = current + 1
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('term', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [Int64(next)])
            return next
        }
    }

    /// Appends entries in one transaction (group commit). Returns once committed.
    public func append(_ entries: [JournalEntry]) throws {
        guard let database, !entries.isEmpty else { return }
        try database.writeWithoutTransaction { db in try JournalInsert.commit(entries, in: db) }
    }

    /// Writes a snapshot, then drops the commands it covers but the last `keep` (kept for retries, K5)
    /// and those after the snapshot before it: the two databases are synced apart, and a snapshot lost
    /// with its database's last transactions (`durability: normal`, a power cut) leaves the one
    /// before it and every command after that. The commands go `compactionChunk` at a time.
    public func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64 = 10_000) throws {
        guard let database, let snapshots else { return }
        let previous = try newestSnapshotSequence()
        try snapshots.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO snapshot(sequence, term, state) VALUES (?, ?, ?)",
                           arguments: [Int64(snapshot.sequence), Int64(snapshot.term), Data(snapshot.state)])
            try db.execute(sql: "DELETE FROM snapshot WHERE sequence < ?", arguments: [Int64(snapshot.sequence)])
        }
        let through = min(snapshot.sequence > keep ? snapshot.sequence - keep : 0, previous ?? 0)
        guard through > 0 else { return }
        while try database.write({ db -> Bool in
            try db.execute(sql: "DELETE FROM command WHERE sequence IN (SELECT sequence FROM command WHERE sequence <= ? LIMIT ?)",
                           arguments: [Int64(through), Self.compactionChunk])
            return db.changesCount == Self.compactionChunk
        }) {}
        // A journal written before snapshots had their own database kept them in its own table.
        try database.write { db in try db.execute(sql: "DELETE FROM snapshot WHERE sequence <= ?", arguments: [Int64(snapshot.sequence)]) }
    }

    /// The newest snapshot's sequence, if any.
    private func newestSnapshotSequence() throws -> UInt64? {
        guard let database, let snapshots else { return nil }
        func newest(_ db: Database) throws -> Int64? { try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM snapshot") }
        return [try snapshots.read(newest), try database.read(newest)].compactMap { $0 }.max().map { UInt64($0) }
    }

    /// The newest snapshot, if any: in `snapshots.sqlite`, or in the journal's own table where an
    /// older coordinator wrote it.
    public func latestSnapshot() throws -> JournalSnapshot? {
        guard let database, let snapshots else { return nil }
        func newest(_ db: Database) throws -> JournalSnapshot? {
            guard let row = try Row.fetchOne(db, sql: "SELECT sequence, term, state FROM snapshot ORDER BY sequence DESC LIMIT 1")
            else { return nil }
            let state: Data = row["state"]
            return JournalSnapshot(sequence: UInt64(row["sequence"] as Int64), term: UInt64(row["term"] as Int64),
                                   state: [UInt8](state))
        }
        let own = try snapshots.read(newest), legacy = try database.read(newest)
        return [own, legacy].compactMap { $0 }.max { $0.sequence < $1.sequence }
    }

    /// Commands with a sequence number greater than `sequence`, in order.
    public func entries(after sequence: UInt64, limit: Int? = nil) throws -> [JournalEntry] {
        guard let database else { return [] }
        return try database.read { db in
            var sql = "SELECT sequence, term, timeMs, node, requestID, command, batch FROM command WHERE sequence > ? ORDER BY sequence"
            if let limit { sql += " LIMIT \(limit)" }
            return try Row.fetchAll(db, sql: sql, arguments: [Int64(sequence)]).map(Self.entry)
        }
    }

    /// Up to `limit` commands after `sequence`, in order, without their published batches (`batch`
    /// is empty): what a restart replays, a page at a time.
    public func commands(after sequence: UInt64, limit: Int) throws -> [JournalEntry] {
        guard let database else { return [] }
        return try database.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT sequence, term, timeMs, node, requestID, command FROM command WHERE sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [Int64(sequence), limit])
            var entries: [JournalEntry] = []
            entries.reserveCapacity(limit)
            while let row = try rows.next() {
                let command: Data = row[5]
                entries.append(JournalEntry(
                    sequence: UInt64(row[0] as Int64), term: UInt64(row[1] as Int64), timeMilliseconds: row[2], node: row[3],
                    requestID: UInt64(bitPattern: row[4] as Int64), command: [UInt8](command), batch: []))
            }
            return entries
        }
    }

    /// The published batches with a sequence greater than `sequence`, in order, as far as the journal
    /// holds them: the first is `sequence + 1` unless that one is compacted (then the caller sees a gap).
    public func batches(after sequence: UInt64, limit: Int) throws -> [[UInt8]] {
        guard let database else { return [] }
        return try database.read { db in
            try Data.fetchAll(db, sql: "SELECT batch FROM command WHERE sequence > ? AND batch IS NOT NULL ORDER BY sequence LIMIT ?",
                              arguments: [Int64(sequence), limit]).map { [UInt8]($0) }
        }
    }

    /// The last `count` commands, oldest first (to rebuild the retry window after a restart, K5).
    public func lastEntries(_ count: Int) throws -> [JournalEntry] {
        guard let database else { return [] }
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM (SELECT sequence, term, timeMs, node, requestID, command, batch FROM command
                ORDER BY sequence DESC LIMIT ?) ORDER BY sequence
                """, arguments: [count]).map(Self.entry)
        }
    }

    /// The highest sequence number journaled or covered by a snapshot (0 when empty).
    public func lastSequence() throws -> UInt64 {
        guard let database else { return 0 }
        let fromCommands = try database.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM command") ?? 0 }
        return max(UInt64(max(0, fromCommands)), try newestSnapshotSequence() ?? 0)
    }

    private static func entry(_ row: Row) -> JournalEntry {
        let command: Data = row["command"]
        return JournalEntry(
            sequence: UInt64(row["sequence"] as Int64), term: UInt64(row["term"] as Int64),
            timeMilliseconds: row["timeMs"], node: row["node"],
            requestID: UInt64(bitPattern: row["requestID"] as Int64), command: [UInt8](command),
            batch: (row["batch"] as Data?).map { [UInt8]($0) } ?? [])
    }
}
