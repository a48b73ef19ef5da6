import Foundation
import GRDB
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

@Suite struct JournalTests {
    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func entry(_ seq: UInt64, term: UInt64 = 1) -> JournalEntry {
        JournalEntry(sequence: seq, term: term, timeMilliseconds: Int64(seq) * 10, node: "n\(seq % 3)",
                     requestID: seq &* 7, command: [UInt8(seq % 256), 1, 2], batch: [8, UInt8(seq % 256)])
    }

    @Test("--durability full syncs every commit (SQLite synchronous = FULL), normal does not",
          arguments: [(JournalDurability.full, 2), (.normal, 1)])
    func synchronousAsConfigured(_ durability: JournalDurability, _ expected: Int) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let journal = try Journal(directory: dir, durability: durability)
        try journal.append([entry(1)])
        #expect(try journal.synchronousSetting() == expected)
    }

    @Test func termIncreasesOnEveryOpen() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try Journal(directory: dir).beginTerm()
        let second = try Journal(directory: dir).beginTerm()
        #expect(first == 1)
        #expect(second == 2)
    }

    @Test(arguments: [JournalDurability.full, .normal])
    func appendedEntriesSurviveReopen(durability: JournalDurability) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let journal = try Journal(directory: dir, durability: durability)
            try journal.append((1...5).map { entry($0) })
            try journal.append([entry(6, term: 2)])
        }
        let reopened = try Journal(directory: dir, durability: durability)
        #expect(try reopened.lastSequence() == 6)
        #expect(try reopened.entries(after: 4) == [entry(5), entry(6, term: 2)])
        #expect(try reopened.lastEntries(2).map(\.sequence) == [5, 6])
    }

    @Test("a snapshot drops the commands it covers, but a retry window and those after the snapshot before it")
    func snapshotPrunesCoveredCommandsButKeepsARetryWindow() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let journal = try Journal(directory: dir)
        try journal.append((1...2_600).map { entry($0) })
        try journal.writeSnapshot(JournalSnapshot(sequence: 1_000, term: 1, state: [1]), keepingCommands: 5)
        #expect(try journal.entries(after: 0).first?.sequence == 1, "no snapshot before it: every command stays")
        try journal.writeSnapshot(JournalSnapshot(sequence: 2_500, term: 1, state: [9, 9]), keepingCommands: 5)
        #expect(try journal.latestSnapshot() == JournalSnapshot(sequence: 2_500, term: 1, state: [9, 9]))
        #expect(try journal.entries(after: 0).map(\.sequence) == Array(1_001...2_600),
                "the commands up to the snapshot before it go, in more than one chunk")
        try journal.writeSnapshot(JournalSnapshot(sequence: 2_580, term: 1, state: [7]), keepingCommands: 50)
        #expect(try journal.entries(after: 0).map(\.sequence) == Array(2_501...2_600), "up to the previous snapshot")
        #expect(try journal.lastSequence() == 2_600)
        let reopened = try Journal(directory: dir)
        #expect(try reopened.latestSnapshot() == JournalSnapshot(sequence: 2_580, term: 1, state: [7]))
    }

    @Test("snapshots live in snapshots.sqlite; one an older coordinator left in the journal's own table is still found, until a newer one replaces it")
    func snapshotsHaveTheirOwnDatabase() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let journal = try Journal(directory: dir)
        try journal.append((1...30).map { entry($0) })
        try journal.writeSnapshot(JournalSnapshot(sequence: 10, term: 1, state: [1, 0]), keepingCommands: 5)
        #expect(FileManager.default.fileExists(atPath: dir + "/snapshots.sqlite"))
        // As an older coordinator wrote it: in journal.sqlite's snapshot table.
        let legacy = try DatabaseQueue(path: dir + "/journal.sqlite")
        try legacy.write { db in
            try db.execute(sql: "INSERT INTO snapshot(sequence, term, state) VALUES (20, 1, x'0200')")
        }
        #expect(try journal.latestSnapshot() == JournalSnapshot(sequence: 20, term: 1, state: [2, 0]), "the newest of both")
        try journal.writeSnapshot(JournalSnapshot(sequence: 25, term: 1, state: [3]), keepingCommands: 5)
        #expect(try journal.latestSnapshot() == JournalSnapshot(sequence: 25, term: 1, state: [3]))
        #expect(try legacy.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM snapshot") } == 0, "the old table emptied")
        #expect(try journal.entries(after: 0).first?.sequence == 21, "commands up to the previous snapshot (20) dropped")
    }

    @Test func offJournalKeepsNothing() throws {
        let journal = try Journal(directory: "/nonexistent", durability: .off)
        try journal.append([entry(1)])
        #expect(try journal.lastSequence() == 0)
        #expect(try journal.latestSnapshot() == nil)
    }

    @Test func aGroupCommitThatFailsKeepsNoneOfItsEntriesAndTheJournalGoesOn() throws {
        let journal = try Journal(directory: try temporaryDirectory(), durability: .normal)
        try journal.append([entry(1), entry(2)])
        // The second entry of the group repeats sequence 2: the whole group is refused.
        #expect(throws: (any Error).self) { try journal.append([entry(3), entry(2), entry(4)]) }
        #expect(try journal.lastSequence() == 2)
        #expect(try journal.entries(after: 0) == [entry(1), entry(2)])
        try journal.append([entry(3), entry(4)])
        #expect(try journal.entries(after: 2) == [entry(3), entry(4)])
    }

    @Test func anEntryWithoutItsBatchIsKeptButNotServedAsOne() throws {
        let journal = try Journal(directory: try temporaryDirectory(), durability: .normal)
        var bare = entry(2)
        bare.batch = []
        try journal.append([entry(1), bare, entry(3)])
        #expect(try journal.entries(after: 0) == [entry(1), bare, entry(3)])
        #expect(try journal.batches(after: 0, limit: 10) == [entry(1).batch, entry(3).batch])
    }
}
