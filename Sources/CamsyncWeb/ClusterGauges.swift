import CamsyncPolicy
import Metrics

/// Gauges read off the web view's totals as the coordinator's web follower applies each batch: nodes
/// alive, cameras held, sessions by state and reason. Computed outside the coordinator's loop.
struct ClusterGauges {
    private let nodesAlive = Gauge(label: "camsync_nodes_alive")
    private let nodesDead = Gauge(label: "camsync_nodes_dead")
    private let camerasHeld = Gauge(label: "camsync_camera_systems_held")
    private let sequence = Gauge(label: "camsync_web_follower_sequence")
    /// Every (state, reason) pair ever reported, so that a pair that drops to zero reads 0, not its last value.
    private var sessionSeries: Set<SessionSeries> = []

    struct SessionSeries: Hashable {
        var state: String
        var reason: String
    }

    /// From the web view's totals, kept per node as batches touch them (not a pass over the cluster).
    mutating func update(_ totals: FleetTotals, sessions counts: [SessionSeries: Int], sequence: UInt64) {
        nodesAlive.record(totals.alive)
        nodesDead.record(totals.dead)
        camerasHeld.record(totals.camerasHeld)
        self.sequence.record(Double(sequence))
        sessionSeries.formUnion(counts.filter { $0.value > 0 }.keys)
        for series in sessionSeries {
            Gauge(label: "camsync_sessions", dimensions: [("state", series.state), ("reason", series.reason)])
                .record(counts[series] ?? 0)
        }
    }

    static func series(_ state: SessionState) -> SessionSeries {
        switch state {
        case .running: SessionSeries(state: "running", reason: "")
        case .stopped: SessionSeries(state: "stopped", reason: "")
        case .interrupted(let reason): SessionSeries(state: "interrupted", reason: "\(reason.rawValue)")
        }
    }
}
