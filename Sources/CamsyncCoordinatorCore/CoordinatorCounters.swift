public import CamsyncWire

/// What the coordinator has counted since it started: kept by the core (it answers snapshots with them),
/// exported by the shell through swift-metrics as each `CoordinatorAction.count` is carried out.
public struct CoordinatorCounters: Sendable, Equatable {
    public private(set) var commandsAccepted = 0
    public private(set) var commandsRefused = 0
    public private(set) var retriesAnswered = 0
    public private(set) var nodesDeclaredDead = 0
    public private(set) var replaysServed = 0
    /// Bad frames by reason.
    public private(set) var badFramesByReason: [BadFrameReason: Int] = [:]

    public init() {}

    public var badFrames: Int { badFramesByReason.values.reduce(0, +) }

    public mutating func record(_ metric: CoordinatorMetric) {
        switch metric {
        case .accepted: commandsAccepted += 1
        case .refused: commandsRefused += 1
        case .retried: retriesAnswered += 1
        case .declaredDead: nodesDeclaredDead += 1
        case .replayServed: replaysServed += 1
        case .badFrame(let reason): badFramesByReason[reason, default: 0] += 1
        case .groupCommit, .commitResent, .snapshotServed, .snapshotEncoded, .claimGranted, .role, .leaderSuspected, .readRefused: break
        }
    }

    /// The wire form served in snapshots (`ctl status` prints it).
    public var wire: Camsync_V1_CoordinatorCounters {
        var wire = Camsync_V1_CoordinatorCounters()
        wire.commandsAccepted = UInt64(commandsAccepted)
        wire.commandsRefused = UInt64(commandsRefused)
        wire.retriesAnswered = UInt64(retriesAnswered)
        wire.nodesDeclaredDead = UInt64(nodesDeclaredDead)
        wire.replaysServed = UInt64(replaysServed)
        wire.badFrames = badFramesByReason.sorted { $0.key.rawValue < $1.key.rawValue }.map { reason, count in
            var entry = Camsync_V1_BadFrameCount()
            entry.reason = reason.rawValue
            entry.count = UInt64(count)
            return entry
        }
        return wire
    }
}
