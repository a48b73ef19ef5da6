import CamsyncConfig
import CamsyncNode
import CamsyncNodeProcess
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Real nodes served by one thread at a time (a part of a `NodeFleet`): each is a `NodeSession` (the
/// protocol logic `camsync node` runs) with its own connections opened as `camsync node` opens them
/// (`NodeConnections`: a DEALER to each coordinator), so the coordinators see N real nodes.
/// What the benchmark reads: when each node followed a new leader, and how many registrations and
/// snapshot requests the nodes sent (SPEC K7: a leader change causes none); for `fleet`, how many
/// nodes joined, each advance of a node's group replica (`groupAdvanced`), and the batch copies
/// and heartbeats the nodes received and sent. With `displays`, each device number starts two nodes:
/// the device and its display, which attaches itself to it (one device group of two).
final class NodeFleetShard: @unchecked Sendable {
    fileprivate struct Member {
        var session: NodeSession
        var connections: NodeConnections
        var deadline: Int64
        /// The device number it was started for, and whether it is that device's display.
        var number: Int
        var isDisplay: Bool
        /// What `joined` and `following` count it as, kept up to date by `execute` (a pass over
        /// every member's session for each status would copy thousands of sessions).
        var isJoined = false
        var followed = ""
    }

    private let context: ZMQContext
    private var members: [Member] = []
    /// The members' sockets, keyed `member << 4 | connection` (`key(_:_:)`).
    private let readiness = SocketReadiness()
    /// Members whose sockets were replaced since the last pass: their new sockets are watched at the
    /// next pass, once per pass, not once per reconnect (a failover moves every node at once).
    private var changed: Set<Int> = []
    /// Members whose sockets were used since they were last read to the end: their `events` are
    /// looked at in the next pass (libzmq signals a socket's descriptor only on a change).
    private var recheck: Set<Int> = []
    /// The earliest of the members' deadlines (monotonic ms), and when they were last looked at.
    private var earliestDeadline = Int64.max
    private var lastTimerScan: Int64 = 0
    /// Counted since the last `resetCounts()`.
    private(set) var registrations = 0
    private(set) var snapshotRequests = 0
    private(set) var replayRequests = 0
    private(set) var reconnections = 0
    /// Since the start: event batches the nodes received (each one copy the leader sent), and
    /// heartbeats the nodes sent.
    private(set) var batchCopies = 0
    /// The bytes of those copies as received: topic and envelope frames.
    private(set) var batchBytes = 0
    private(set) var heartbeatsSent = 0
    /// The leader's heartbeats and bookmarks the nodes received, by the 100 ms they arrived in
    /// (`ArrivalSpread.bucket`), not taken yet (`takeArrivals`).
    private var arrivals: [Int64: Int] = [:]
    /// Called when a node's group replica applied batches up to a new group sequence:
    /// (device number, whether the node is the display, the sequence of the group's last batch applied).
    var groupAdvanced: ((Int, Bool, UInt64) -> Void)?
    /// When (monotonic ns) each node first followed another coordinator than `leaving`.
    private(set) var followedAt: [UInt64?] = []
    private var leaving: String?
    /// When (monotonic ns) a node last moved its DEALER to another coordinator (0: none has).
    private(set) var lastMovedAt: UInt64 = 0

    private let commandEndpoints: [String]
    private let eventEndpoints: [String]
    private let heartbeatMilliseconds: Int64
    private let liveness: Int64
    private let apps: Int
    private let displays: Bool
    /// CURVE: the coordinator's public key, and the run's salt each node's key pair is derived from
    /// (`FleetKeys`); nil: lab mode.
    private let curve: (coordinatorKey: String, salt: UInt64)?

    /// An empty fleet; `add` starts nodes.
    init(context: ZMQContext, commandEndpoints: [String], eventEndpoints: [String], heartbeatMilliseconds: Int64,
         liveness: Int64 = 3, apps: Int = 3, displays: Bool = false, curve: (coordinatorKey: String, salt: UInt64)? = nil) {
        self.curve = curve
        self.context = context
        self.commandEndpoints = commandEndpoints
        self.eventEndpoints = eventEndpoints
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
        self.apps = apps
        self.displays = displays
    }

    /// Starts the nodes numbered `numbers` (`sim-NNNN`, and with `displays` each one's `simd-NNNN`):
    /// each registers and asks for a snapshot, as `camsync node` does at start.
    func add(_ numbers: [Int]) throws {
        let now = Self.now()
        for number in numbers {
            let device = SimulatedNode.id(number)
            try start(SimulatedNode.registration(device, apps: apps), number: number, now: now)
            if displays {
                try start(SimulatedNode.displayRegistration(SimulatedNode.displayID(number), attachedTo: device), number: number, now: now)
            }
        }
    }

    private func start(_ registration: NodeRegistration, number: Int, now: NodeTime) throws {
        let index = members.count
        var settings = NodeSettings(config: NodeConfig(registration: registration),
                                    coordinatorCommandEndpoint: commandEndpoints.joined(separator: ","),
                                    coordinatorEventEndpoint: eventEndpoints.joined(separator: ","),
                                    controlEndpoint: "", heartbeatIntervalMilliseconds: heartbeatMilliseconds,
                                    liveness: liveness)
        if let curve {
            let keys = try FleetKeys.node(registration.node.rawValue, salt: curve.salt)
            settings.security = NodeSecurity(publicKey: keys.publicKey, secretKey: keys.secretKey, coordinatorPublicKey: curve.coordinatorKey)
        }
        var session = NodeSession(settings: settings, now: now)
        let connections = try NodeConnections(context, session: session)
        let actions = session.start(now: now)
        members.append(Member(session: session, connections: connections, deadline: session.nextDeadline,
                              number: number, isDisplay: registration.kind == .display))
        followedAt.append(nil)
        try watch(index)
        try execute(actions, for: index)
    }

    var count: Int { members.count }

    /// Every node registered, synced and following `endpoint`.
    func allSynced(following endpoint: String) -> Bool {
        members.allSatisfy { $0.session.registered && $0.session.replica.phase == .synced && $0.session.followed.commandEndpoint == endpoint }
    }

    /// How far joining got: nodes registered, synced, and how many follow each coordinator.
    var joining: (registered: Int, synced: Int, following: [String: Int]) {
        (members.filter(\.session.registered).count, members.filter { $0.session.replica.phase == .synced }.count, following)
    }

    /// Nodes registered and synced, displays also attached in their own replica (a fleet has joined).
    private(set) var joined = 0

    /// How many nodes follow each coordinator (by its command endpoint).
    private(set) var following: [String: Int] = [:]

    /// The first `limit` nodes not joined yet, each with where it stands (for a log when joining stalls).
    func unjoined(limit: Int) -> [String] {
        members.indices.lazy.filter { !self.members[$0].isJoined }.prefix(limit).map { index in
            let session = members[index].session
            return "\(session.id): registered \(session.registered), replica \(session.replica.phase), group "
                + "\(session.replica.group.map { "\($0)" } ?? "none"), attached to "
                + "\(session.replica.state.nodes[session.id]?.attachedTo.map { "\($0)" } ?? "nothing"), following "
                + "\(session.followed.commandEndpoint)"
        }
    }

    /// Every node follows `endpoint`.
    func allFollow(_ endpoint: String) -> Bool { following[endpoint, default: 0] == members.count }

    /// From now on (the coordinator at `endpoint` was just killed): note when each node moves to
    /// another one, and count registrations and snapshot requests from zero.
    func watch(leaving endpoint: String) {
        leaving = endpoint
        followedAt = members.map { $0.session.followed.commandEndpoint == endpoint ? nil : Clock.monotonicNanoseconds() }
        registrations = 0
        snapshotRequests = 0
        reconnections = 0
    }

    /// Serves every node for up to `milliseconds`: what arrived (the sockets that signalled, and those
    /// used since they were last read to the end), then the timers that are due.
    func pump(milliseconds: Int) throws {
        let until = Clock.monotonicMilliseconds() + Int64(max(0, milliseconds))
        repeat {
            if !changed.isEmpty {
                for index in changed { try watch(index) }
                changed.removeAll(keepingCapacity: true)
            }
            let now = Clock.monotonicMilliseconds()
            let wait = recheck.isEmpty ? max(0, min(until, earliestDeadline) - now) : 0
            for key in readiness.wait(timeoutMilliseconds: Int(wait)) {
                let index = key >> 4
                guard members.indices.contains(index), !changed.contains(index) else { continue }   // its sockets were just replaced
                try drain(index, connection: key & 15)
            }
            let rechecked = recheck
            recheck.removeAll(keepingCapacity: true)
            for index in rechecked {
                for connection in members[index].connections.sockets.indices where !changed.contains(index) {
                    if try members[index].connections.sockets[connection].events.contains(.readable) { try drain(index, connection: connection) }
                }
            }
            try runTimers()
        } while Clock.monotonicMilliseconds() < until
    }

    /// The members whose deadline passed, at most once a millisecond (deadlines are in milliseconds).
    private func runTimers() throws {
        let now = Self.now()
        guard now.monotonic >= earliestDeadline, now.monotonic > lastTimerScan else { return }
        lastTimerScan = now.monotonic
        earliestDeadline = Int64.max
        for index in members.indices {
            if members[index].deadline <= now.monotonic { try execute(members[index].session.tick(now: now), for: index) }
            earliestDeadline = min(earliestDeadline, members[index].deadline)
        }
    }

    func close() {
        for member in members { member.connections.close() }
        members.removeAll()
    }

    private func drain(_ index: Int, connection: Int) throws {
        var taken = 0
        while true {
            guard taken < 256 else {
                recheck.insert(index)   // the rest at the next pass
                return
            }
            guard members[index].connections.sockets.indices.contains(connection) else { return }
            let socket = members[index].connections.sockets[connection]
            guard let message = try socket.receive(dontWait: true) else { return }
            taken += 1
            let now = Self.now()
            guard message.frames.count == 2 else {   // one frame: a reply; two: a push of the feed
                try execute(members[index].session.receiveReply(message.frames, now: now), for: index)
                if changed.contains(index) { return }   // the socket just read may be closed
                continue
            }
            if ProtobufWire.lengthDelimited(Self.eventBatchField, in: message.frames[1]) != nil {
                batchCopies += 1
                batchBytes += message.frames[0].count + message.frames[1].count
            } else if Self.intervalFields.contains(where: { ProtobufWire.lengthDelimited($0, in: message.frames[1]) != nil }) {
                arrivals[ArrivalSpread.bucket(milliseconds: now.monotonic), default: 0] += 1
            }
            let before = members[index].session.replica.groupSequence
            try execute(members[index].session.receivePublication(message.frames, now: now), for: index)
            let after = members[index].session.replica.groupSequence
            if after > before, let groupAdvanced { groupAdvanced(members[index].number, members[index].isDisplay, after) }
            if changed.contains(index) { return }   // the socket just read may be closed
        }
    }

    private func execute(_ actions: [NodeAction], for index: Int) throws {
        try Member.World(shard: self, index: index).carryOut(actions)
        noteStanding(index)
        members[index].deadline = members[index].session.nextDeadline
        earliestDeadline = min(earliestDeadline, members[index].deadline)
        recheck.insert(index)
        if let leaving, followedAt[safe: index] == .some(nil), members[index].session.followed.commandEndpoint != leaving {
            followedAt[index] = Clock.monotonicNanoseconds()
        }
    }

    fileprivate func send(_ envelope: Envelope, for index: Int) {
        if case .nodeHeartbeat? = envelope.body { heartbeatsSent += 1 }
        _ = try? members[index].connections.followedSocket.send([envelope.serializedBytes()], dontWait: true)
    }

    /// Counted: `reopened`, connections a node closed and opened again (a leader change costs none).
    fileprivate func follow(_ index: Int, commandEndpoint: String, serverKey: String?, reopen: Bool) throws {
        lastMovedAt = Clock.monotonicNanoseconds()
        if reopen { reconnections += 1 }
        if try members[index].connections.follow(context, members[index].session.settings, endpoint: commandEndpoint,
                                                 serverKey: serverKey, reopen: reopen) {
            changed.insert(index)
        }
    }

    fileprivate func count(_ metric: NodeMetric) {
        switch metric {
        case .registrationSent: registrations += 1
        case .snapshotRequested: snapshotRequests += 1
        case .replayRequested: replayRequests += 1
        default: break
        }
    }

    /// Keeps `joined` and `following` in step with member `index` (read in place, not copied).
    private func noteStanding(_ index: Int) {
        let isJoined = members[index].session.registered && members[index].session.replica.phase == .synced
            && (!members[index].isDisplay || members[index].session.replica.state.nodes[members[index].session.id]?.attachedTo != nil)
        if isJoined != members[index].isJoined {
            members[index].isJoined = isJoined
            joined += isJoined ? 1 : -1
        }
        let followed = members[index].session.followed.commandEndpoint
        if followed != members[index].followed {
            if !members[index].followed.isEmpty { following[members[index].followed, default: 0] -= 1 }
            following[followed, default: 0] += 1
            members[index].followed = followed
        }
    }

    private func watch(_ index: Int) throws {
        for (connection, socket) in members[index].connections.sockets.enumerated() {
            try readiness.watch(socket, key: index << 4 | connection)
        }
    }

    /// `Envelope.event_batch` (docs/PROTOCOL.md): a publication holding it is a batch, not a bookmark
    /// or a heartbeat.
    static let eventBatchField: UInt64 = 30

    /// `Envelope.coordinator_heartbeat` and `Envelope.group_bookmark`: what the leader sends each node
    /// once an interval without a command.
    static let intervalFields: [UInt64] = [31, 32]

    /// The arrivals counted in the 100 ms buckets before `bucket`, taken out.
    func takeArrivals(before bucket: Int64) -> [Int64: Int] {
        let closed = arrivals.filter { $0.key < bucket }
        for key in closed.keys { arrivals[key] = nil }
        return closed
    }

    /// Each node holds a socket and a connection per coordinator (and libzmq an eventfd per socket): raise
    /// the soft limit on open files towards the hard one when it is lower than `needed`.
    static func allowOpenFiles(_ needed: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(needed) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(needed))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func now() -> NodeTime {
        NodeTime(monotonic: Clock.monotonicMilliseconds(), wall: Instant(milliseconds: Clock.wallMilliseconds()))
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// One member's world: its connections in the shard; what it counts is the shard's (`NodeWorld`).
extension NodeFleetShard.Member {
    struct World: NodeWorld {
        unowned let shard: NodeFleetShard
        let index: Int

        func send(_ envelope: Envelope) { shard.send(envelope, for: index) }
        func follow(commandEndpoint: String, serverKey: String?, reopen: Bool) throws {
            try shard.follow(index, commandEndpoint: commandEndpoint, serverKey: serverKey, reopen: reopen)
        }
        func replyToControl(identity: [UInt8], _ envelope: Envelope) {}   // a shard's nodes have no control socket
        func appendHistory(_ entry: NodeHistoryEntry) {}
        func count(_ metric: NodeMetric) { shard.count(metric) }
    }
}
