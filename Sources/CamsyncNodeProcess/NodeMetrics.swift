import CamsyncNode
import Metrics

/// The shell's export of `NodeMetric`s.
struct NodeMetrics {
    private let lag = Gauge(label: "camsync_node_replica_lag_sequences")
    private let fenceRefusals = Counter(label: "camsync_node_fence_refusals_total")
    private let snapshots = Counter(label: "camsync_node_snapshot_requests_total")
    private let staleTerms = Counter(label: "camsync_node_stale_term_ignored_total")
    private let untrusted = Counter(label: "camsync_node_untrusted_coordinator_ignored_total")
    private let leaderSwitches = Counter(label: "camsync_node_leader_switches_total")
    private let termChanges = Counter(label: "camsync_node_term_changes_total")
    private let registrations = Counter(label: "camsync_node_registrations_total")
    private let replays = Counter(label: "camsync_node_replay_requests_total")
    private let unheardMoves = Counter(label: "camsync_node_unheard_moves_total")

    func record(_ metric: NodeMetric) {
        switch metric {
        case .replicaLag(let sequences): lag.record(Double(sequences))
        case .fenceRefused: fenceRefusals.increment()
        case .snapshotRequested: snapshots.increment()
        case .staleTermIgnored: staleTerms.increment()
        case .untrustedCoordinatorIgnored: untrusted.increment()
        case .leaderFollowed: leaderSwitches.increment()
        case .termChanged: termChanges.increment()
        case .registrationSent: registrations.increment()
        case .replayRequested: replays.increment()
        case .movedUnheard: unheardMoves.increment()
        }
    }
}
