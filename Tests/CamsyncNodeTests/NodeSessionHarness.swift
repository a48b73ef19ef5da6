import CamsyncConfig
import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// What the NodeSession tests share: a node's settings, injected time, a coordinator without
/// sockets, and readers for the actions a session returns.
enum NodeSessionHarness {
    static let node: NodeID = "ipad-1"
    static let app = AppID(device: "ipad-1", bundleID: "com.example.call")
    static let device = DeviceAttributes(model: "iPad", osMajor: 17, cameras: [CameraSpec(name: "front", position: .front)],
                                         apps: [AppSpec(bundleID: "com.example.call")])

    /// Defaults of `camsync node`: 500 ms heartbeats, liveness 3, 1 s retries, 10 attempts.
    /// `commands`/`events`: comma-separated lists with several coordinators (K6).
    static func settings(_ registration: NodeRegistration = NodeRegistration(node: node, attributes: .device(device)),
                         requestRetryMilliseconds: Int64 = 1000, requestAttempts: Int = 10,
                         commands: String = "tcp://127.0.0.1:5555", events: String = "tcp://127.0.0.1:5556") -> NodeSettings {
        NodeSettings(config: NodeConfig(registration: registration),
                     coordinatorCommandEndpoint: commands, coordinatorEventEndpoint: events,
                     controlEndpoint: "ipc:///tmp/unused", heartbeatIntervalMilliseconds: 500, liveness: 3,
                     requestRetryMilliseconds: requestRetryMilliseconds, requestAttempts: requestAttempts)
    }

    /// Injected time: monotonic `ms`, and a wall clock that runs alongside it.
    static func at(_ ms: Int64) -> NodeTime {
        NodeTime(monotonic: ms, wall: Instant(milliseconds: 1_800_000_000_000 + ms))
    }

    /// A session taken through the whole join (register → ack → snapshot → live) at t = 0…300,
    /// with `apps` opened full screen on the coordinator afterwards (they become the node's assertions).
    static func joined(settings: NodeSettings = settings(), coordinator: FakeCoordinator = FakeCoordinator(),
                       openApps: [AppID] = []) throws -> (NodeSession, FakeCoordinator) {
        var session = NodeSession(settings: settings, now: at(0))
        var coordinator = coordinator
        let register = try #require(session.start(now: at(0)).sent.first)
        _ = session.receivePublication(coordinator.heartbeat(), now: at(100))
        let snapshotRequest = try #require(session.pending.values.first { $0.isSnapshot }?.envelope)
        let answer = try coordinator.answer(register)
        _ = session.receivePublication(try #require(answer.publication), now: at(150))
        _ = session.receiveReply(answer.reply, now: at(200))
        _ = session.receiveReply(try coordinator.answer(snapshotRequest).reply, now: at(300))
        for (offset, app) in openApps.enumerated() {
            let batch = try coordinator.publish(.openFullScreen(app, trigger: .user))
            _ = session.receivePublication(batch, now: at(300 + Int64(offset)))
        }
        return (session, coordinator)
    }
}

/// A coordinator without sockets: a real policy engine that answers a session's requests and
/// publishes batches, as message frames (DEALER: one frame; PUB: topic, envelope). With a `name`
/// it is one of several (K6): its heartbeats name it as the leader, at its endpoints.
struct FakeCoordinator {
    var engine = PolicyEngine()
    var sequence: UInt64 = 0
    var term: UInt64 = 1
    var time = Instant(milliseconds: 1_800_000_000_000)
    var name: String?
    /// The CURVE public key it names itself with (each coordinator has its own); "" for none.
    var publicKey = ""
    /// Every batch published, as the log keeps them (replays); `compacted` drops them.
    var log: [Camsync_V1_EventBatch] = []
    var compacted = false

    /// One of several coordinators ("a", "b", …), at `HA.commands(name)` and `HA.events(name)`.
    static func named(_ name: String, term: UInt64) -> Self {
        var coordinator = Self()
        coordinator.name = name
        coordinator.term = term
        return coordinator
    }

    /// The same cluster state and log (replicated on etcd), led by `name` in `term` (K6 failover).
    func failedOver(to name: String, term: UInt64) -> Self {
        var leader = self
        leader.name = name
        leader.term = term
        return leader
    }

    /// What it advertises: `coordinator` in its heartbeats, `leader` in NOT_LEADER errors.
    var address: Camsync_V1_CoordinatorAddress? {
        name.map { name in
            var address = Camsync_V1_CoordinatorAddress()
            address.name = name
            address.commandEndpoint = HA.commands(name)
            address.eventEndpoint = HA.events(name)
            address.term = term
            address.publicKey = publicKey
            return address
        }
    }

    struct Answer {
        var reply: [[UInt8]]
        /// The batch published for an accepted command.
        var publication: [[UInt8]]?
    }

    /// Applies a command as the coordinator would and returns the published frames.
    mutating func publish(_ command: Command) throws -> [[UInt8]] {
        try publishBatch(command).publication
    }

    mutating func publishBatch(_ command: Command) throws -> (sequence: UInt64, publication: [[UInt8]]) {
        time = time.adding(milliseconds: 10)
        let events = try engine.apply(command, at: time).get()
        sequence += 1
        let batch = Camsync_V1_EventBatch(sequence: sequence, term: term, time: time, originNode: nil, originRequestID: 0,
                                          wireCommand: Camsync_V1_Command(command), events: events)
        log.append(batch)
        return (sequence, [Array("ev.test".utf8), Envelope.eventBatch(batch).serializedBytes()])
    }

    /// The reply to a request (and the batch an accepted command publishes).
    mutating func answer(_ request: Envelope) throws -> Answer {
        switch request.body {
        case .snapshotRequest?:
            return Answer(reply: [Envelope.snapshot(engine.state, sequence: sequence, term: term, requestID: request.requestID,
                                                    settings: engine.settings).serializedBytes()])
        case .replayRequest(let replay)?:
            let batches = log.filter { $0.sequence > replay.afterSequence }
            guard !compacted, !batches.isEmpty || replay.afterSequence >= sequence else {
                return Answer(reply: [Envelope.error(Camsync_V1_Error(code: .compacted, message: "compacted"),
                                                     requestID: request.requestID, term: term).serializedBytes()])
            }
            var body = Camsync_V1_Replay()
            body.batches = batches
            body.lastSequence = sequence
            return Answer(reply: [Envelope(sender: Envelope.coordinatorSender, requestID: request.requestID, term: term,
                                           body: .replay(body)).serializedBytes()])
        case .command?:
            let (sequence, publication) = try publishBatch(try request.domainCommand())
            return Answer(reply: [Envelope.ack(sequence: sequence, requestID: request.requestID, term: term).serializedBytes()],
                          publication: publication)
        default:
            Issue.record("the fake coordinator does not answer \(String(describing: request.body))")
            return Answer(reply: [])
        }
    }

    func heartbeat(lastSequence: UInt64? = nil) -> [[UInt8]] {
        var envelope = Envelope.coordinatorHeartbeat(term: term, lastSequence: lastSequence ?? sequence, time: time)
        if let address, case .coordinatorHeartbeat(var heartbeat)? = envelope.body {
            heartbeat.coordinator = address
            envelope.body = .coordinatorHeartbeat(heartbeat)
        }
        return [Array("hb".utf8), envelope.serializedBytes()]
    }

    /// A standby's answer to any request (K6): nothing applied; `leader` names the leader if known.
    func notLeader(_ request: Envelope, leader: Camsync_V1_CoordinatorAddress?, reason: String) -> [[UInt8]] {
        var error = Camsync_V1_Error(code: .notLeader, message: "not the leader (\(reason))")
        if let leader { error.leader = leader }
        return [Envelope.error(error, requestID: request.requestID, term: term).serializedBytes()]
    }
}

/// Endpoints of several coordinators (K6) in the tests: coordinator "a" at ha-a…
enum HA {
    static func commands(_ name: String) -> String { "ipc:///tmp/ha-\(name)-commands" }
    static func events(_ name: String) -> String { "ipc:///tmp/ha-\(name)-events" }
    /// A node's settings for coordinators `names`, as comma-separated lists.
    static func settings(_ names: [String] = ["a", "b", "c"], requestRetryMilliseconds: Int64 = 1000,
                         requestAttempts: Int = 10) -> NodeSettings {
        NodeSessionHarness.settings(requestRetryMilliseconds: requestRetryMilliseconds, requestAttempts: requestAttempts,
                                    commands: names.map(commands).joined(separator: ","),
                                    events: names.map(events).joined(separator: ", "))
    }
}

extension NodeSession.PendingRequest {
    var isSnapshot: Bool { if case .snapshot = origin { true } else { false } }
    var isRegister: Bool { if case .register = origin { true } else { false } }
}

extension Envelope {
    /// The registration in a register request, if this is one.
    var registration: NodeRegistration? {
        if case .registerNode(let registration)? = try? domainCommand() { registration } else { nil }
    }
    var isSnapshotRequest: Bool { if case .snapshotRequest? = body { true } else { false } }
}

extension Array where Element == NodeAction {
    /// Envelopes sent to the coordinator, in order.
    var sent: [Envelope] {
        compactMap { if case .send(let envelope) = $0 { envelope } else { nil } }
    }
    /// Requests sent (heartbeats left out).
    var requests: [Envelope] { sent.filter { !$0.isNodeHeartbeat } }
    var registrations: [NodeRegistration] { sent.compactMap(\.registration) }
    var snapshotRequests: [Envelope] { sent.filter(\.isSnapshotRequest) }
    var replayRequests: [Envelope] { sent.filter { if case .replayRequest? = $0.body { true } else { false } } }
    /// `.follow` actions: whether each one reopens the connection.
    var reconnects: [Bool] {
        compactMap { if case .follow(_, _, let reopen) = $0 { reopen } else { nil } }
    }
    /// `.follow` actions: the command endpoint each one sends to from then on.
    var reconnectEndpoints: [String] {
        compactMap { if case .follow(let endpoint, _, _) = $0 { endpoint } else { nil } }
    }
    /// What was counted (`.count` actions).
    var metrics: [NodeMetric] {
        compactMap { if case .count(let metric) = $0 { metric } else { nil } }
    }
    var controlReplies: [(identity: [UInt8], envelope: Envelope)] {
        compactMap { if case .replyToControl(let identity, let envelope) = $0 { (identity, envelope) } else { nil } }
    }
    var history: [NodeHistoryEntry] {
        compactMap { if case .appendHistory(let entry) = $0 { entry } else { nil } }
    }
}
