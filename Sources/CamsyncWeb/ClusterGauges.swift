import CamsyncPolicy
import Metrics

/// Gauges read off the cluster state as the coordinator's web follower applies each batch: nodes
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

    mutating func update(_ state: ClusterState, sequence: UInt64) {
        let alive = state.nodes.values.filter(\.alive).count
        nodesAlive.record(alive)
        nodesDead.record(state.nodes.count - alive)
        camerasHeld.record(state.cameraSystems.values.filter { $0.holder != nil }.count)
        self.sequence.record(Double(sequence))
        var counts: [SessionSeries: Int] = [:]
        for app in state.apps.values {
            guard let session = app.session else { continue }
            counts[Self.series(session.state), default: 0] += 1
        }
        sessionSeries.formUnion(counts.keys)
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
