/// The nodes a leader-kill trial watches (`HAFailoverBenchmark.trials`): real node sessions in the
/// benchmark's process (`NodeFleet`) or in fleet shard processes (`FleetShards`).
protocol FailoverNodes: AnyObject {
    /// Serves the nodes (or takes their processes' reports) for up to `milliseconds`.
    func pump(milliseconds: Int) throws
    /// The coordinator at `endpoint` was just killed: from now on, note when the nodes move away
    /// from it, and count registrations and snapshot requests from zero.
    func watch(leaving endpoint: String) throws
    /// When every node follows `endpoint`: the instant (monotonic ns) the last of them moved to it
    /// (or any earlier instant when none had to); nil while some node does not follow it.
    func followedAll(_ endpoint: String) -> UInt64?
    /// The nodes following `endpoint`, for a trial's error.
    func following(_ endpoint: String) -> Int
    /// Registrations and snapshot requests the nodes sent, and connections they reopened, since
    /// `watch(leaving:)`, all counted (a shard process reports every 100 ms: this waits for reports
    /// sent after the call).
    func sentSinceWatch() throws -> (registrations: Int, snapshotRequests: Int, reconnections: Int)
}

extension NodeFleet: FailoverNodes {
    func followedAll(_ endpoint: String) -> UInt64? {
        let moved = followedAt
        guard moved.allSatisfy({ $0 != nil }), allFollow(endpoint) else { return nil }
        return moved.compactMap { $0 }.max() ?? 0
    }

    func sentSinceWatch() throws -> (registrations: Int, snapshotRequests: Int, reconnections: Int) {
        (registrations, snapshotRequests, reconnections)
    }
}

extension FleetShards: FailoverNodes {
    func pump(milliseconds: Int) throws { try pump(milliseconds: milliseconds, onApplied: { _, _, _ in }) }

    func watch(leaving endpoint: String) throws {
        try freshStatuses()
        watched = (registrations, snapshotRequests, reconnections)
    }

    func followedAll(_ endpoint: String) -> UInt64? {
        guard following(endpoint) == nodes else { return nil }
        return lastMovedAt
    }

    func sentSinceWatch() throws -> (registrations: Int, snapshotRequests: Int, reconnections: Int) {
        try freshStatuses()
        return (registrations - (watched?.registrations ?? 0), snapshotRequests - (watched?.snapshotRequests ?? 0),
                reconnections - (watched?.reconnections ?? 0))
    }
}
