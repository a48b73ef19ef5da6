public import CamsyncPolicy

/// What only a leader works with: its turns handed to the log and not released yet (K3), the
/// snapshot requests waiting for a turn, and its nodes' liveness clocks (K1). A core holds one
/// exactly while it leads (`CoordinatorCore.leaderWork`): begun afresh when it begins to lead (every
/// node's silence counts from then, K7), dropped when it steps down (its turns answered NOT_LEADER
/// first). So no standby judges silence, and no turn outlives the leadership that gathered it.
struct LeaderWork: Sendable {
    /// Turns handed to the log and not released yet, oldest first (at most `settings.commitsInFlight`).
    var inFlight: [TurnInFlight] = []
    /// Snapshot requests admitted beyond what one turn serves, oldest first (`snapshotsPerTurn`).
    var snapshotBacklog: [(routingID: [UInt8], requestID: UInt64, group: NodeID?)] = []
    /// Last traffic from each node (monotonic ms).
    var lastSeen: [NodeID: Int64] = [:]
    /// Since when (monotonic ms) nodes not heard from yet are silent: the leadership's start.
    var graceStart: Int64
    /// Every alive node's liveness deadline, or an earlier one (`LivenessDeadlines`); nil: made
    /// from every node at the next tick (a leadership's first).
    var deadlines: LivenessDeadlines?
    /// When the next tick looks for silent nodes (monotonic ms): the earliest deadline, or shortly
    /// while the leader catches up with its frames; nil: nothing is due (no node is watched).
    var livenessCheckDue: Int64?
    /// The last instant (monotonic ms) at which the leader had taken every frame waiting for it (the
    /// frames phase found the socket empty). Silence is judged up to then, not up to the clock: a
    /// leader that fell behind (a starved thread, a turn stalled after its frames) has heartbeats
    /// waiting unread, and their nodes are not silent (K7). nil: whoever hands the core its frames
    /// (a test, the fuzzer) hands it all of them.
    var heardAllAt: Int64?

    /// When this leadership began (monotonic ms).
    let began: Int64

    init(startingAt now: Int64) {
        graceStart = now
        began = now
    }

    /// The liveness clocks start afresh at `now`: nobody is declared dead for silence before it (K7).
    mutating func restartClocks(at now: Int64) {
        lastSeen.removeAll()
        graceStart = now
    }

    /// When `node` was last heard from, or the grace's start.
    func heard(_ node: NodeID) -> Int64 { lastSeen[node] ?? graceStart }
}
