import Foundation
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

    @Test func snapshotPrunesCoveredCommandsButKeepsARetryWindow() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let journal = try Journal(directory: dir)
        try journal.append((1...20).map { entry($0) })
        try journal.writeSnapshot(JournalSnapshot(sequence: 15, term: 1, state: [9, 9]), keepingCommands: 5)
        #expect(try journal.latestSnapshot() == JournalSnapshot(sequence: 15, term: 1, state: [9, 9]))
        #expect(try journal.lastEntries(100).map(\.sequence) == Array(11...20))
        #expect(try journal.lastSequence() == 20)
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
