/// Where a follower that prints the event stream as it comes (`ctl watch`) stands: the highest
/// coordinator term heard and the last sequence it showed. Sequences never repeat across terms (K6,
/// K7), so a batch at or below the last one shown is one it has shown already: a new leader
/// publishing again the old leader's last batches (K7), or the live stream overlapping a replay.
/// Followers that keep a replica (nodes, the web view) drop those through `ReplicaSync` instead.
public struct EventStreamPosition: Sendable, Equatable {
    /// The highest term heard (0: none yet).
    public private(set) var term: UInt64 = 0
    /// The last sequence shown (0: none yet).
    public private(set) var lastShown: UInt64 = 0

    public init(lastShown: UInt64 = 0) { self.lastShown = lastShown }

    /// What an envelope's term says.
    public enum TermChange: Sendable, Equatable {
        /// Lower than a term heard: a deposed leader's late publication, not to be shown (K6).
        case deposed
        /// The term heard so far.
        case same
        /// A higher term than `from` (0: the first heard): a coordinator restarted or another leads.
        case rose(from: UInt64)
    }

    public mutating func note(term: UInt64) -> TermChange {
        if term < self.term { return .deposed }
        guard term > self.term else { return .same }
        defer { self.term = term }
        return .rose(from: self.term)
    }

    /// A batch at `sequence`: nil when it was shown already; otherwise how many sequences lie between
    /// the last one shown and it (0 when none was shown yet), and it counts as shown from now on.
    public mutating func show(_ sequence: UInt64) -> UInt64? {
        guard sequence > lastShown else { return nil }
        defer { lastShown = sequence }
        return lastShown == 0 ? 0 : sequence - lastShown - 1
    }

    /// A batch of a followed device group whose entry in `EventBatch.groups` names `previous` as the
    /// group's previous batch: nil when shown already; else whether batches of the group were missed
    /// since the last one shown (a replay after `lastShown` finds them). Unknown before anything was
    /// shown: false.
    public mutating func show(_ sequence: UInt64, groupPrevious previous: UInt64) -> Bool? {
        guard sequence > lastShown else { return nil }
        defer { lastShown = sequence }
        return lastShown != 0 && previous > lastShown
    }

    /// Batches shown by other means (a replay of the journal) through `sequence`.
    public mutating func shown(through sequence: UInt64) { lastShown = max(lastShown, sequence) }
}
