import Metrics

/// What the coordinator counts (swift-metrics; any backend the process bootstraps sees them).
/// The same numbers are kept locally so logs and tests can read them without a backend.
struct CoordinatorMetrics {
    private(set) var commandsAccepted = 0
    private(set) var commandsRefused = 0
    private(set) var retriesAnswered = 0
    private(set) var badFrames = 0
    private(set) var nodesDeclaredDead = 0
    private(set) var replaysServed = 0
    /// Bad frames by reason (the same counts as the `camsync_bad_frames_total` dimensions).
    private(set) var badFramesByReason: [String: Int] = [:]

    private let acceptedCounter = Counter(label: "camsync_commands_accepted_total")
    private let refusedCounter = Counter(label: "camsync_commands_refused_total")
    private let retriesCounter = Counter(label: "camsync_command_retries_total")
    private let deadCounter = Counter(label: "camsync_nodes_declared_dead_total")
    private let replayCounter = Counter(label: "camsync_replays_served_total")
    private let batchSize = Recorder(label: "camsync_group_commit_size")

    mutating func accepted(_ n: Int = 1) { commandsAccepted += n; acceptedCounter.increment(by: n) }
    mutating func refused() { commandsRefused += 1; refusedCounter.increment() }
    mutating func retried() { retriesAnswered += 1; retriesCounter.increment() }
    mutating func declaredDead() { nodesDeclaredDead += 1; deadCounter.increment() }
    mutating func replayServed() { replaysServed += 1; replayCounter.increment() }
    func groupCommit(size: Int) { batchSize.record(size) }

    /// A frame that could not be served: `reason` is the error code name.
    mutating func badFrame(reason: String) {
        badFrames += 1
        badFramesByReason[reason, default: 0] += 1
        Counter(label: "camsync_bad_frames_total", dimensions: [("reason", reason)]).increment()
    }
}
