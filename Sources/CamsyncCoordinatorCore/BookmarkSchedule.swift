import CamsyncPolicy
import CamsyncWire

/// Which device groups' bookmarks the leader publishes at a heartbeat (docs/PROTOCOL.md
/// "GroupBookmark"): a group's in the `afterBatch` intervals after each of its batches (a lost last
/// batch shows within one interval, and a lost bookmark with it within two), every group at a new
/// leader's (or a restarted coordinator's) first heartbeat, and every group once every `sweepIntervals` intervals whatever happened
/// (a node that lost both, reconnecting, learns it within 10 s at 500 ms). So an idle fleet costs the
/// leader 1/`sweepIntervals` of its groups' bookmarks per interval, not all of them.
struct BookmarkSchedule: Sendable, Equatable {
    static let afterBatch: UInt8 = 2
    static let sweepIntervals: UInt64 = 20

    /// Bookmarks each recently active group is still owed.
    private var owed: [NodeID: UInt8] = [:]
    private var interval: UInt64 = 0
    /// A coordinator that starts (restarted from its journal) bookmarks every group first.
    private var everyGroupNext = true

    /// A batch went out to `groups`.
    mutating func batchPublished(to groups: [NodeID]) {
        for group in groups { owed[group] = Self.afterBatch }
    }

    /// Every group at the next heartbeat (a new leader: its predecessor's last batches may be lost).
    mutating func everyGroupNextTime() { everyGroupNext = true }

    /// The groups due at this heartbeat, in group order, with their last batch's sequence; counts the interval.
    mutating func due(_ sequences: GroupSequences) -> [(group: NodeID, sequence: UInt64)] {
        defer {
            interval += 1
            everyGroupNext = false
            owed = owed.compactMapValues { $0 > 1 ? $0 - 1 : nil }
        }
        if everyGroupNext { return sequences.all }
        let turn = interval % Self.sweepIntervals
        var due: [(group: NodeID, sequence: UInt64)] = []
        sequences.forEach { group, sequence in
            if owed[group] != nil || sequence % Self.sweepIntervals == turn { due.append((group, sequence)) }
        }
        return due.sorted { $0.group < $1.group }
    }
}
