public import CamsyncWire

/// What the coordinator's protocol logic asks its shell to do. `CoordinatorCore` returns these from
/// `receive`, `tick` and `turnCommitted`; the shell (`CoordinatorLoop`) only carries them out.
///
/// The write-ahead contract: every `append` of a turn must be durable before any `reply` or `publish`
/// of the same turn leaves the process (group commit), and then the shell calls `turnCommitted()`.
/// Which log makes an `append` durable (the SQLite journal, or etcd in HA) is the executor's business.
public enum CoordinatorAction: Sendable, Equatable {
    /// Send `envelope` to the connection holding `routingID` on the command socket.
    case reply(routingID: [UInt8], Envelope)
    /// Append an accepted command (and the batch published for it) to the command log.
    case append(JournalEntry)
    /// Publish on the event socket under `topic`.
    case publish(topic: String, Envelope)
    /// Read up to `limit` published batches after `after` from the log and hand them to
    /// `CoordinatorCore.replayReply(…)`; its envelope goes to `routingID`.
    case serveReplay(routingID: [UInt8], requestID: UInt64, after: UInt64, limit: Int)
    /// Write a state snapshot and drop log entries older than the retry window behind it (K3, K5).
    case writeSnapshot(JournalSnapshot, keepingCommands: UInt64)
    /// Close the connection the frame came on, once its refusal has had `afterMilliseconds` to leave.
    case dropConnection(ConnectionHandle, afterMilliseconds: Int64)
    /// Refuse new connections with this CURVE key for a while (ZAP).
    case suspendKey(String, milliseconds: Int64)
    /// Count something (the shell exports it through swift-metrics).
    case count(CoordinatorMetric)
    case log(CoordinatorLogEntry)
}

/// The shell's name for one connection (libzmq's `ZMQ_SRCFD`); the core only passes it back.
public struct ConnectionHandle: Sendable, Hashable {
    public var descriptor: Int32
    public init(descriptor: Int32) { self.descriptor = descriptor }
}

/// One message as the command socket delivered it.
public struct InboundFrame: Sendable {
    /// The ROUTER's frames: the routing id, then (normally) one `Envelope`.
    public var frames: [[UInt8]]
    /// The CURVE public key ZAP admitted for this connection (nil in lab mode).
    public var userID: String?
    public var connection: ConnectionHandle?

    public init(frames: [[UInt8]], userID: String? = nil, connection: ConnectionHandle? = nil) {
        self.frames = frames
        self.userID = userID
        self.connection = connection
    }
}

/// The two clocks the core is told about: monotonic for deadlines, wall for engine time.
public struct CoordinatorTime: Sendable, Hashable {
    public var monotonicMilliseconds: Int64
    public var wallMilliseconds: Int64
    public init(monotonicMilliseconds: Int64, wallMilliseconds: Int64) {
        self.monotonicMilliseconds = monotonicMilliseconds
        self.wallMilliseconds = wallMilliseconds
    }
}

/// What the coordinator counts (docs/OPERATIONS.md "Counters").
public enum CoordinatorMetric: Sendable, Hashable {
    case accepted
    case refused(Camsync_V1_ErrorCode)
    case retried
    case declaredDead
    case replayServed
    /// A frame that could not be served, by reason (the error code's name, or `routingID`, `frames`, …).
    case badFrame(reason: String)
    case groupCommit(size: Int)
    /// A snapshot request answered.
    case snapshotServed
    /// A camera grant for a session that had asked to run: engine milliseconds since its `startSession`
    /// was accepted (0 when granted at once; a waiting session's wait otherwise). See `ClaimLatency`.
    case claimGranted(milliseconds: Int64)
    /// HA (SPEC K6): this coordinator started leading in `term`, or stopped (`leading` false).
    case role(leading: Bool, term: UInt64)
}

/// A line for the shell's logger.
public struct CoordinatorLogEntry: Sendable, Hashable {
    public enum Level: Sendable, Hashable { case info, warning, error }
    public var level: Level
    public var message: String
    public var metadata: [String: String]
    public init(_ level: Level, _ message: String, _ metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}
