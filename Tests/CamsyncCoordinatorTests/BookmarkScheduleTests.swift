import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// Which groups' bookmarks a heartbeat carries: every group at first, a group in the two intervals
/// after each of its batches, and each group once every 20 intervals.
@Suite struct BookmarkScheduleTests {
    static func sequences(_ count: Int) -> GroupSequences {
        var sequences = GroupSequences()
        for index in 1...count { _ = sequences.advance([NodeID("ipad-\(index)")], to: UInt64(index)) }
        return sequences
    }

    @Test("every group at the first heartbeat and after everyGroupNextTime; then only what is due")
    func everyGroupFirst() {
        var schedule = BookmarkSchedule()
        let sequences = Self.sequences(100)
        #expect(schedule.due(sequences).count == 100)
        #expect(schedule.due(sequences).count == 5, "one sweep turn: the groups whose last sequence ≡ the turn (mod 20)")
        schedule.everyGroupNextTime()
        #expect(schedule.due(sequences).count == 100)
    }

    @Test("a group's bookmark in the two intervals after its batch, then only at its sweep turn")
    func afterABatch() {
        var schedule = BookmarkSchedule()
        var sequences = Self.sequences(40)
        _ = schedule.due(sequences)   // the first heartbeat: everything
        _ = sequences.advance(["ipad-7"], to: 41)
        schedule.batchPublished(to: ["ipad-7"])
        var intervals: [Int] = []
        for interval in 1...40 where schedule.due(sequences).contains(where: { $0.group == "ipad-7" && $0.sequence == 41 }) {
            intervals.append(interval)
        }
        // Turn k covers the sequences ≡ k (mod 20), k counting from the first heartbeat (0): 41 at turn 1.
        #expect(intervals == [1, 2, 21], "two right after the batch, then the sweep every 20 intervals")
    }

    @Test("every group once in any 20 consecutive intervals")
    func sweepCoversEveryGroup() {
        var schedule = BookmarkSchedule()
        let sequences = Self.sequences(333)
        _ = schedule.due(sequences)
        var seen: [NodeID: Int] = [:]
        for _ in 0..<20 { for entry in schedule.due(sequences) { seen[entry.group, default: 0] += 1 } }
        #expect(seen.count == 333 && seen.values.allSatisfy { $0 == 1 })
    }
}
