public import CamsyncPolicy
public import CamsyncWire
public import Logging

/// What `NodeSession` asks its shell (`NodeLoop`) to do, in order. The session decides; the shell
/// owns the sockets, the history file and the logger and only carries these out.
public enum NodeAction: Sendable {
    /// Send this envelope on the connection to the followed coordinator (requests, retries, heartbeats).
    case send(Envelope)
    /// From now on send to the coordinator at `commandEndpoint`, the one the session follows (SPEC
    /// K6: the leader, or the next endpoint of the list while all are silent), on the connection the
    /// node keeps to it — opened now if it has none, with `serverKey` as its CURVE server key (nil
    /// without CURVE): that coordinator's, one the session believes (`TrustedCoordinators`). With
    /// `reopen`, that connection is closed and opened afresh first, dropping whatever was queued on
    /// a dead one. Resends of pending requests follow as `.send` actions.
    case follow(commandEndpoint: String, serverKey: String?, reopen: Bool)
    /// Answer a local control client (`camsync ctl`) on the control ROUTER.
    case replyToControl(identity: [UInt8], Envelope)
    /// Append a line to the node's history file (`--history`), if it keeps one.
    case appendHistory(NodeHistoryEntry)
    /// Count or measure something (the shell exports it through swift-metrics; docs/OPERATIONS.md).
    case count(NodeMetric)
    /// A log line for the node's logger.
    case log(Logger.Level, Logger.Message, Logger.Metadata)
}

/// The time a shell passes into `NodeSession`: the session never reads a clock.
public struct NodeTime: Sendable, Equatable {
    /// Milliseconds since an arbitrary point, never going backwards (timeouts, liveness, deadlines).
    public var monotonic: Int64
    /// Wall-clock time (stamped on heartbeats, fence records and the history file).
    public var wall: Instant

    public init(monotonic: Int64, wall: Instant) {
        self.monotonic = monotonic
        self.wall = wall
    }
}
