import CamsyncPolicy
import CamsyncRuntime

/// Spreads the leader's messages to each node over the heartbeat interval (docs/PROTOCOL.md "The
/// feed"): the interval is cut into `count` slots and the nodes are dealt into them evenly, in the
/// order of a hash of each id salted by the leader's term (so a new leader deals them out again),
/// and at each slot's time the leader pushes the heartbeat (and the group's bookmark when due) to
/// that slot's nodes only. So every slot of an interval carries `1/count` of the fleet (one node
/// more at most), instead of the whole fleet at once.
/// Who is in which slot is dealt at each interval's start, from the nodes the state holds then. The
/// one exception is a new leader's first heartbeat: to every node at once, so that a leader change
/// costs each node one message and no wait for its slot.
struct HeartbeatSlots: Sendable, Equatable {
    /// Slots per interval: 100 ms each at a 5 s interval, 10 ms at 500 ms.
    static let count = 50

    /// When (monotonic ms) the current interval began; nil: not begun (the next tick begins one).
    private(set) var intervalStart: Int64?
    /// Slots of the current interval served so far.
    private(set) var served = 0
    /// The nodes of each slot of the current interval.
    private var slots: [[NodeID]] = []

    /// Where `node` comes in the deal under `salt` (FNV-1a of its id, then mixed with the salt).
    static func rank(of node: NodeID, salt: UInt64) -> UInt64 {
        var hash = FNV1a.hash(node.rawValue) ^ (salt &* 0x9e37_79b9_7f4a_7c15)
        hash ^= hash >> 31
        return hash
    }

    /// `nodes` dealt into the slots: ordered by `rank` (ties by id), the k-th of n goes to slot
    /// k × count / n, so each slot holds ⌊n / count⌋ or ⌈n / count⌉ of them.
    static func deal(_ nodes: [NodeID], salt: UInt64) -> [[NodeID]] {
        let ordered = nodes.map { (rank: rank(of: $0, salt: salt), node: $0) }
            .sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.node < $1.node }
        var slots = Array(repeating: [NodeID](), count: count)
        for (k, entry) in ordered.enumerated() { slots[k * count / ordered.count].append(entry.node) }
        return slots
    }

    /// When slot `index` of the current interval is due (monotonic ms).
    private func due(_ index: Int, interval: Int64) -> Int64 {
        (intervalStart ?? 0) + interval * Int64(index) / Int64(Self.count)
    }

    /// When the next slot with a node in it is due, or the next interval; nil before the first
    /// interval begins (due at once).
    func nextDue(interval: Int64) -> Int64? {
        guard let intervalStart else { return nil }
        guard let next = (served..<Self.count).first(where: { !slots[$0].isEmpty }) else { return intervalStart + interval }
        return due(next, interval: interval)
    }

    /// Starts over at the next tick (a new leader, whose salt is another term).
    mutating func reset() {
        intervalStart = nil
        served = 0
        slots = []
    }

    /// What is due at `now`: whether an interval begins (the caller then heartbeats the event
    /// socket and computes the bookmarks due), and the nodes whose slots have come, in slot order.
    /// `nodes` (in any order) deals the slots of a new interval (read only when one begins).
    mutating func take(at now: Int64, interval: Int64, salt: UInt64,
                       nodes: () -> [NodeID]) -> (begins: Bool, nodes: [NodeID]) {
        var begins = false
        if intervalStart == nil {
            // A new leader's (or a restarted coordinator's) first interval: every node hears it at once,
            // one message each on the connection it has — it follows the new leader now, not at its slot.
            intervalStart = now
            served = Self.count
            slots = Array(repeating: [], count: Self.count)
            // In the deal's order (the term-salted hash's), not the state's dictionary's: a run is its seed's.
            return (true, Self.deal(nodes(), salt: salt).flatMap { $0 })
        }
        if served == Self.count {
            // A leader far behind (a stalled loop) does not run the intervals it missed back to back.
            let next = intervalStart! + interval
            guard next <= now else { return (false, []) }
            intervalStart = now - next >= interval ? now : next
            served = 0
            slots = Self.deal(nodes(), salt: salt)
            begins = true
        }
        var taken: [NodeID] = []
        while served < Self.count, due(served, interval: interval) <= now {
            taken += slots[served]
            served += 1
        }
        return (begins, taken)
    }
}
