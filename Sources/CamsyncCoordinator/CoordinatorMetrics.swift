import CamsyncWire
import Metrics
import CamsyncCoordinatorCore

/// The shell's export of `CoordinatorMetric`s through swift-metrics (any backend the process bootstraps
/// sees them). The counts themselves live in the core's `CoordinatorCounters`.
struct CoordinatorMetrics: Sendable {
    private let acceptedCounter = Counter(label: "camsync_commands_accepted_total")
    private let retriesCounter = Counter(label: "camsync_command_retries_total")
    private let deadCounter = Counter(label: "camsync_nodes_declared_dead_total")
    private let replayCounter = Counter(label: "camsync_replays_served_total")
    private let batchSize = Recorder(label: "camsync_group_commit_entries")
    private let snapshotCounter = Counter(label: "camsync_snapshots_served_total")
    private let snapshotBytes = Recorder(label: "camsync_snapshot_encoded_bytes")
    private let claimLatency = Metrics.Timer(label: "camsync_camera_wait_seconds")
    private let leading = Gauge(label: "camsync_coordinator_leading")
    private let term = Gauge(label: "camsync_coordinator_term")
    private let suspicions = Counter(label: "camsync_leader_suspicions_total")
    private let resent = Counter(label: "camsync_commits_resent_total")
    private let readsRefused = Counter(label: "camsync_group_reads_refused_total")

    /// How long each write of a turn to the command log took, as the coordinator saw it: the SQLite
    /// group commit with its sync (embedded), or the conditional etcd transaction with its round trip
    /// (HA). Recorded by the shell that writes (`JournalWriter`, `EtcdLogExecutor`), off the core.
    static let logWrite = Metrics.Timer(label: "camsync_log_write_seconds")

    func record(_ metric: CoordinatorMetric) {
        switch metric {
        case .accepted: acceptedCounter.increment()
        case .refused(let code):
            Counter(label: "camsync_commands_refused_total", dimensions: [("code", "\(code)")]).increment()
        case .retried: retriesCounter.increment()
        case .declaredDead: deadCounter.increment()
        case .replayServed: replayCounter.increment()
        case .badFrame(let reason):
            Counter(label: "camsync_bad_frames_total", dimensions: [("reason", reason.rawValue)]).increment()
        case .groupCommit(let size): batchSize.record(size)
        case .snapshotServed: snapshotCounter.increment()
        case .snapshotEncoded(let bytes): snapshotBytes.record(bytes)
        case .claimGranted(let milliseconds): claimLatency.recordMilliseconds(milliseconds)
        case .leaderSuspected: suspicions.increment()
        case .commitResent: resent.increment()
        case .readRefused: readsRefused.increment()
        case .role(let isLeading, let current):
            leading.record(isLeading ? 1 : 0)
            term.record(Double(current))
            Counter(label: "camsync_leadership_changes_total", dimensions: [("to", isLeading ? "leader" : "standby")]).increment()
        }
    }
}
