import GRDB
import GRDBSQLite
import CamsyncCoordinatorCore

/// A group commit's rows, bound straight to SQLite's prepared insert: GRDB's `execute(arguments:)`
/// boxes every value of every row in a `StatementArguments` (and the journal copied each blob into a
/// `Data` for it), which was most of the journal's own cost per entry (`camsync bench micro`, the
/// "journal append" rows, and docs/PERFORMANCE.md). The statements are still GRDB's cached ones, on
/// GRDB's connection; the blobs are bound without a copy (`SQLITE_STATIC`, valid for the step).
enum JournalInsert {
    static let sql = "INSERT INTO command(sequence, term, timeMs, node, requestID, command, batch) VALUES (?, ?, ?, ?, ?, ?, ?)"

    /// The rows in one transaction of their own (a group commit), begun and committed with cached
    /// statements: GRDB's `write` compiles `BEGIN` and `COMMIT` again for every transaction.
    static func commit(_ entries: [JournalEntry], in db: Database) throws {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            try insert(entries, in: db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    private static func insert(_ entries: [JournalEntry], in db: Database) throws {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        defer { sqlite3_clear_bindings(handle) }
        for entry in entries {
            try check(sqlite3_bind_int64(handle, 1, Int64(bitPattern: entry.sequence)), in: db)
            try check(sqlite3_bind_int64(handle, 2, Int64(bitPattern: entry.term)), in: db)
            try check(sqlite3_bind_int64(handle, 3, entry.timeMilliseconds), in: db)
            try check(sqlite3_bind_int64(handle, 5, Int64(bitPattern: entry.requestID)), in: db)
            let step = entry.node.withCString { node in
                entry.command.withUnsafeBytes { command in
                    entry.batch.withUnsafeBytes { batch -> Int32 in
                        var code = sqlite3_bind_text(handle, 4, node, -1, nil)
                        if code == SQLITE_OK { code = bindBlob(handle, 6, command) }
                        if code == SQLITE_OK { code = batch.isEmpty ? sqlite3_bind_null(handle, 7) : bindBlob(handle, 7, batch) }
                        guard code == SQLITE_OK else { return code }
                        defer { sqlite3_reset(handle) }
                        return sqlite3_step(handle)
                    }
                }
            }
            guard step == SQLITE_DONE else { throw error(step, in: db) }
        }
    }

    private static func check(_ code: Int32, in db: Database) throws {
        guard code == SQLITE_OK else { throw error(code, in: db) }
    }

    /// A blob bound without a copy; an empty one as a zero-length blob, not NULL. (An empty batch is
    /// bound as NULL instead: a row without its published batch, which replays skip.)
    private static func bindBlob(_ handle: OpaquePointer, _ index: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0) : sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil)
    }

    private static func error(_ code: Int32, in db: Database) -> DatabaseError {
        let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
}
