import CamsyncCoordinator
import CamsyncCoordinatorCore

/// The embedded coordinator's journal: what a commit made durable survives a crash; a commit under
/// way when the process dies is lost (it was never acknowledged).
struct SimJournal {
    var entries: [JournalEntry] = []
    var snapshot: JournalSnapshot?
    /// Incarnations so far (the term of the next start).
    var terms: UInt64 = 0

    mutating func append(_ new: [JournalEntry]) { entries += new }

    mutating func writeSnapshot(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64) {
        self.snapshot = snapshot
        if snapshot.sequence > keep { entries.removeAll { $0.sequence <= snapshot.sequence - keep } }
    }

    func batches(after: UInt64, limit: Int) -> [[UInt8]] {
        Array(entries.lazy.filter { $0.sequence > after }.map(\.batch).prefix(limit))
    }
}
