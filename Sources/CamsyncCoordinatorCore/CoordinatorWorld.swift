public import CamsyncEtcdModel
public import CamsyncWire

/// The I/O seam a coordinator's loop runs on (FoundationDB's `INetwork`: `Net2` and `Sim2` behind one
/// interface). `CoordinatorTurn` — what a turn drains, in which order, when it ticks and ends, and how
/// each `CoordinatorAction` is carried out — is written once against it; two worlds implement it:
/// `CoordinatorLoop` (ZeroMQ sockets, the SQLite journal or etcd, the process's clocks) and the
/// simulator's `SimCoordinatorWorld` (its network, store, journal and clock, where work takes time).
/// Nothing above this protocol knows which world it runs in.
///
/// Every call returns at once: a read or a write of the log is started here and its answer comes
/// back through `nextAnswer` in a later phase; no loop waits on etcd.
public protocol CoordinatorWorld: AnyObject {
    /// The clocks, as the core is told them.
    func now() -> CoordinatorTime

    // MARK: What a turn takes

    /// etcd's news the leadership supervisor has posted since the last call (none when embedded).
    func takeNews() -> [LeadershipEvent]
    /// The next answer of the log to a read or a write in flight.
    func nextAnswer() -> StoreAnswer?
    /// The next frame waiting on the command socket.
    func nextFrame() throws -> InboundFrame?
    /// The next message waiting on the standby's subscription to the leader's pulse.
    func nextPulse() throws -> [[UInt8]]?
    /// The process is gone (a simulated crash placed inside a turn): the turn stops here.
    var isHalted: Bool { get }
    /// A fault point: `answer` and what the core made of it were carried out.
    func answerCarriedOut(_ answer: StoreAnswer)

    // MARK: What the core's actions do

    /// A reply on the command socket to the connection holding `routingID`.
    func send(_ envelope: Envelope, to routingID: [UInt8])
    /// A reply encoded once for several requests, sent as the reply to `requestID`.
    func send(_ shared: Publication, answering requestID: UInt64, to routingID: [UInt8])
    func publish(topic: String, _ publication: Publication)
    /// A publication pushed to one node on the command socket, to the connection holding `routingID`.
    func push(_ publication: Publication, topic: String, to routingID: [UInt8])
    /// Starts making `commit` durable; returns its answer when the world made it durable at once
    /// (the idle journal), nil when the answer comes later through `nextAnswer`.
    func commit(_ commit: TurnCommit) -> StoreAnswer?
    /// Starts a snapshot write; only a failure is answered (through `nextAnswer`).
    func write(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?)
    /// Starts a read of the log; its answer comes through `nextAnswer`.
    func read(_ read: LogRead)
    func resign(_ leadership: EtcdLeadership)
    func listen(toLeader leader: Camsync_V1_CoordinatorAddress?)
    func revoke(lease: Int64)
    func drop(_ connection: ConnectionHandle)
    func suspend(key: String, milliseconds: Int64)
    func count(_ metric: CoordinatorMetric)
    func log(_ entry: CoordinatorLogEntry)
    /// Fail-stop: the world stops this coordinator (the real one throws out of its loop).
    func stop(_ reason: String) throws
}

/// A read of the command log a core asked for; each is answered by the `StoreAnswer` it names.
public enum LogRead: Sendable, Equatable {
    /// Published batches after `after` for a node's replay (`StoreAnswer.replay`).
    case replay(routingID: [UInt8], requestID: UInt64, after: UInt64, limit: Int)
    /// etcd's newest snapshot and the log after it (`StoreAnswer.rebuilt`).
    case rebuild
    /// The log after `after` (`StoreAnswer.logRead`).
    case log(after: UInt64)
}
