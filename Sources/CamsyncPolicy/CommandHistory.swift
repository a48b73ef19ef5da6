/// The command log from a base state: the cluster at any sequence since the base, by replaying the
/// commands through the engine (the web view's history slider). Pure; bounded: past `limit` entries
/// the oldest are folded into the base.
public struct CommandHistory: Sendable {
    public struct Entry: Sendable, Equatable {
        public var sequence: UInt64
        public var time: Instant
        public var command: Command
    }

    public let settings: PolicySettings
    /// The state at `baseSequence`: the empty cluster at 0, or a snapshot where the log was compacted.
    public private(set) var base: ClusterState
    public private(set) var baseSequence: UInt64
    public private(set) var entries: [Entry] = []
    public let limit: Int

    public init(settings: PolicySettings, base: ClusterState = ClusterState(), baseSequence: UInt64 = 0, limit: Int = 100_000) {
        self.settings = settings
        self.base = base
        self.baseSequence = baseSequence
        self.limit = limit
    }

    /// The last sequence it can show.
    public var lastSequence: UInt64 { entries.last?.sequence ?? baseSequence }

    /// Appends the next command of the log; one that does not continue it starts the history afresh
    /// from `state` (the state after it, when the caller has it) or is ignored.
    public mutating func append(sequence: UInt64, time: Instant, command: Command, stateAfter state: ClusterState? = nil) {
        guard sequence == lastSequence + 1 else {
            if let state, sequence > lastSequence {
                base = state
                baseSequence = sequence
                entries.removeAll()
            }
            return
        }
        entries.append(Entry(sequence: sequence, time: time, command: command))
        if entries.count > limit {
            let oldest = entries.count - limit
            var engine = PolicyEngine(settings: settings, state: base)
            for entry in entries.prefix(oldest) { _ = engine.apply(entry.command, at: entry.time) }
            base = engine.state
            baseSequence = entries[oldest - 1].sequence
            entries.removeFirst(oldest)
        }
    }

    /// The cluster right after `sequence` was applied; nil before the base or after the last entry.
    public func state(at sequence: UInt64) -> ClusterState? {
        guard sequence >= baseSequence, sequence <= lastSequence else { return nil }
        var engine = PolicyEngine(settings: settings, state: base)
        for entry in entries where entry.sequence <= sequence { _ = engine.apply(entry.command, at: entry.time) }
        return engine.state
    }
}
