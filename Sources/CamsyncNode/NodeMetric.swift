public import CamsyncPolicy

/// What a node counts and measures (docs/OPERATIONS.md "Metrics"): `NodeSession` returns them as
/// `NodeAction.count`, the shell exports them through swift-metrics.
public enum NodeMetric: Sendable, Equatable {
    /// How far the replica is behind: a full replica, by the sequence the coordinator's heartbeat
    /// names; a replica of one device group, by its group's bookmark (the group's last batch).
    case replicaLag(UInt64)
    /// The fence refused a grant under a token older than one already seen (C8).
    case fenceRefused
    /// A snapshot asked of the coordinator (joining, or a gap in the stream).
    case snapshotRequested
    /// A batch, heartbeat or reply under a lower coordinator term than one already seen was ignored (K6).
    case staleTermIgnored
    /// A heartbeat or a NOT_LEADER named a coordinator whose key this node does not trust: not
    /// believed (not followed, its term not taken, not a sign of life).
    case untrustedCoordinatorIgnored
    /// The DEALER switched to the leader a heartbeat or a NOT_LEADER reply named (K6).
    case leaderFollowed
    /// A higher coordinator term was heard; the replica and the registration carried over (K7).
    case termChanged
    /// A registration sent (joining: start, declared dead, unknown to the coordinator).
    case registrationSent
    /// A replay of the log asked for after a gap (instead of a snapshot).
    case replayRequested
    /// The feed brought a bookmark of another device group, newer than anything the replica holds:
    /// the node was moved by a batch it never heard, and takes its new group's snapshot. `held`:
    /// the group its replica held.
    case movedUnheard(held: NodeID)
}
