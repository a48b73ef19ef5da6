public import CamsyncWire
public import CamsyncEtcdModel

/// What the coordinator's protocol logic asks its shell to do. `CoordinatorCore` returns these from
/// every event it is given (a frame, time, the log's answers, etcd's news); the shell
/// (`CoordinatorLoop`) only carries them out, in the order given, and hands the outcome of each
/// I/O action back to the core as the event the action names.
///
/// The write-ahead contract lives in the core: the replies and publications of a turn come out of
/// `turnCommitted(at:)` only, after the shell made the turn's `commit` durable (docs/DEVELOPING.md).
public enum CoordinatorAction: Sendable, Equatable {
    /// Send `envelope` to the connection holding `routingID` on the command socket.
    case reply(routingID: [UInt8], Envelope)
    /// Send `publication`, encoded once for several requests of a turn (the whole state's snapshot),
    /// to the connection holding `routingID` as the reply to `requestID` (`Publication.bytes(answering:)`).
    case answer(routingID: [UInt8], requestID: UInt64, Publication)
    /// Make a turn's accepted commands durable in one group commit, without waiting for it: then call
    /// `turnCommitted(_:at:)`, or `turnFailed(_:_:at:)` when the log did not take it. Several may be
    /// in flight; the embedded journal writes them in the order given.
    case commit(TurnCommit)
    /// Publish on the event socket under `topic` (`Publication.bytes`, encoded once): what admin
    /// observers and a standby's pulse listener follow.
    case publish(topic: String, Publication)
    /// Push to one node on the connection holding `routingID` on the command socket, as two frames
    /// (`topic`, then the envelope): the node's feed and the coordinator's heartbeat to it
    /// (docs/PROTOCOL.md "The feed").
    case push(routingID: [UInt8], topic: String, Publication)
    /// Read up to `limit` published batches after `after` from the log and hand them to
    /// `CoordinatorCore.replayReply(…)`; its envelope goes to `routingID`.
    case serveReplay(routingID: [UInt8], requestID: UInt64, after: UInt64, limit: Int)
    /// Write a state snapshot and drop log entries older than the retry window behind it (K3, K5),
    /// conditional on `leadership` in HA and on the turn ending at the snapshot's sequence being in
    /// the log (it may still be in flight: the embedded journal writes it after that turn, etcd
    /// refuses it until then). Without waiting; a failure goes to `snapshotFailed(_:at:)`.
    case writeSnapshot(JournalSnapshot, keepingCommands: UInt64, ifLeading: EtcdLeadership?)
    /// HA: read the newest snapshot and every logged command after it, and hand them to
    /// `rebuilt(snapshot:entries:at:)` (or the failure to `storeFailed(_:at:)`).
    case rebuildFromLog
    /// HA: read every logged command after `sequence` and hand them to `logRead(_:at:)` (or the
    /// failure to `storeFailed(_:at:)`).
    case readLog(after: UInt64)
    /// HA: give up `leadership` on etcd (the supervisor revokes its lease and campaigns again).
    case resign(EtcdLeadership)
    /// HA: listen to this leader's pulse (a SUB to its event endpoint, topic `pulse`, handed to
    /// `heardPulse(_:at:)`); nil: to none.
    case listen(toLeader: Camsync_V1_CoordinatorAddress?)
    /// HA: revoke this etcd lease (the suspected leader's): its key goes, the next candidate wins.
    case revokeLease(Int64)
    /// Close this connection now (its refusal has had time to leave: libzmq writes on its own thread).
    case dropConnection(ConnectionHandle)
    /// Refuse new connections with this CURVE key for a while (ZAP).
    case suspendKey(String, milliseconds: Int64)
    /// Count something (the shell exports it through swift-metrics).
    case count(CoordinatorMetric)
    case log(CoordinatorLogEntry)
    /// Stop serving (fail-stop): the embedded journal could not make a turn durable.
    case stop(reason: String)
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
    /// A frame that could not be served, by reason.
    case badFrame(BadFrameReason)
    case groupCommit(size: Int)
    /// A pipelined turn sent again: it had reached the log before the turn it follows.
    case commitResent
    /// A snapshot request answered.
    case snapshotServed
    /// A snapshot encoded for a turn's requests (a group's, or the whole state's: the loop's largest
    /// piece of work), this many bytes (`CoordinatorCore.answerSnapshotRequests`).
    case snapshotEncoded(bytes: Int)
    /// A camera grant for a session that had asked to run: engine milliseconds since its `startSession`
    /// was accepted (0 when granted at once; a waiting session's wait otherwise). See `ClaimLatency`.
    case claimGranted(milliseconds: Int64)
    /// HA (SPEC K6): this coordinator started leading in `term`, or stopped (`leading` false).
    case role(leading: Bool, term: UInt64)
    /// HA: this standby stopped hearing the leader's pulse and revoked its lease.
    case leaderSuspected
    /// A snapshot or replay of a device group the sender may not read (a node reads its own only).
    case readRefused
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
