public import CamsyncPolicy
public import CamsyncWire
import Logging

/// A node's protocol state, sans I/O: registration (K2), the replica (Clone pattern, `ReplicaSync`),
/// the camera fence (C8), pending requests and their retries (K5), coordinator silence and the
/// reconnect schedule (K1), which coordinator to follow (K6), and the app-facing event log. It reads no clock and
/// owns no socket: the shell (`NodeLoop`) feeds it messages and the time, and carries out the
/// `NodeAction`s each entry point returns, in order. Only the session's own methods change its
/// state; the shell, labs and tests read it. Public so that a lab (or a simulator) can drive a real session.
public struct NodeSession {
    public let settings: NodeSettings
    public var id: NodeID { settings.config.id }

    public internal(set) var replica = ReplicaSync()
    public internal(set) var fence: CameraFence
    var appEvents: RingBuffer<AppFacingEvent>
    var fenceLog: RingBuffer<FenceRecord>
    /// K2: what this node runs, as of the last state in which it was alive in the cluster.
    var assertions: [AppAssertion] = []
    public internal(set) var membership = Membership.joining
    /// A display detached by a request (heard as its batch, not with its device's leaving): it stays
    /// detached until its device joins again. A detach not heard, found in a snapshot, is taken for
    /// its device's leaving (`handleSnapshotReply`).
    var detachedByRequest = false
    /// Which coordinator the DEALER talks to, and the highest term heard (K6, K7): the leader as the
    /// coordinators name it, by the one rule `FollowedLeader` keeps.
    public internal(set) var leader: FollowedLeader
    /// The highest coordinator term heard: anything under a lower one is ignored (K6).
    public var knownTerm: UInt64 { leader.highestTerm }
    /// The coordinator the DEALER talks to.
    public var followed: FollowedLeader.Coordinator { leader.followed }

    /// Server keys of coordinators named (and believed) at endpoints the node's lists do not hold.
    var namedKeys: [String: String] = [:]

    var nextRequestID: UInt64
    var pending: [UInt64: PendingRequest] = [:]
    var lastSentToCoordinator: Int64 = 0
    var lastHeardFromCoordinator: Int64
    public internal(set) var contact = CoordinatorContact.heard
    public internal(set) var subscription = Subscription.opening
    public internal(set) var catchUp = CatchUp.none

    /// The time of the entry point being run (set on entry; the session never reads a clock).
    var now: NodeTime
    /// Actions produced by the entry point being run, handed to the shell when it returns.
    var actions: [NodeAction] = []

    struct PendingRequest: Sendable {
        enum Origin: Sendable {
            /// A local control client's command, forwarded as this node; `command` is its domain form.
            case control(identity: [UInt8], requestID: UInt64, command: Command)
            case register
            case snapshot
            case replay
            case attach
        }
        var origin: Origin
        var envelope: Envelope
        var sentAt: Int64
        var firstSentAt: Int64
        var attempts: Int
        /// The message of the last NOT_LEADER answer (K6): why no coordinator took it, so far.
        var notLeader: String?
    }

    /// `now.wall` seeds the request ids: they must not repeat across restarts of this node
    /// (K5 windows live in the coordinator).
    public init(settings: NodeSettings, now: NodeTime) {
        self.settings = settings
        self.now = now
        fence = CameraFence(host: settings.config.id)
        appEvents = RingBuffer(capacity: settings.historyLimit)
        fenceLog = RingBuffer(capacity: settings.historyLimit)
        nextRequestID = UInt64(max(0, now.wall.milliseconds)) << 16
        leader = FollowedLeader(endpoints: settings.coordinatorCommandEndpoints)
        lastHeardFromCoordinator = now.monotonic
        replica.plantedBug = settings.plantedBug
    }

    // MARK: Entry points

    /// The node starts: note it in the history, then register and ask for a snapshot.
    public mutating func start(now: NodeTime) -> [NodeAction] {
        enter(now)
        actions.append(.appendHistory(.start(node: id, at: now.wall)))
        join(reason: "start")
        return leave()
    }

    /// When the shell must call `tick` at the latest (monotonic ms): the next heartbeat to send,
    /// the coordinator's liveness timeout, or a pending request's retry.
    public var nextDeadline: Int64 {
        var deadline = lastSentToCoordinator + settings.heartbeatIntervalMilliseconds
        // Silent: the next reconnect is what is due (the silence deadline lies in the past, and polling
        // up to it would spin the loop while the coordinator is away).
        deadline = switch contact {
        case .silent(let nextReconnect, _): min(deadline, nextReconnect)
        case .heard: min(deadline, lastHeardFromCoordinator + settings.heartbeatIntervalMilliseconds * settings.liveness + 1)
        }
        for request in pending.values { deadline = min(deadline, request.sentAt + settings.requestRetryMilliseconds) }
        return deadline
    }

    // MARK: Helpers for the entry points

    mutating func enter(_ time: NodeTime) {
        now = time
        actions.removeAll()
    }

    mutating func leave() -> [NodeAction] {
        defer { actions.removeAll() }
        return actions
    }

    mutating func emit(_ action: NodeAction) {
        actions.append(action)
    }

    mutating func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata = [:]) {
        var metadata = metadata
        metadata["node"] = "\(id)"
        actions.append(.log(level, message, metadata))
    }
}
