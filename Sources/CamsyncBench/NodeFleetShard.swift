import CamsyncConfig
import CamsyncNode
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Real nodes served by one thread at a time (a part of a `NodeFleet`): each is a `NodeSession` (the
/// protocol logic `camsync node` runs) with its own DEALER and SUB opened as `camsync node` opens
/// them (`NodeSockets`), so the coordinators see N real subscribers and N real command connections.
/// What the benchmark reads: when each node followed a new leader, and how many registrations and
/// snapshot requests the nodes sent (SPEC K7: a leader change causes none).
final class NodeFleetShard: @unchecked Sendable {
    private struct Member {
        var session: NodeSession
        var dealer: ZMQSocket
        var subscriber: ZMQSocket
        var deadline: Int64
        /// The topics `subscriber` is subscribed to (the session's device group, and heartbeats).
        var subscribed: [String]
    }

    private let context: ZMQContext
    private var members: [Member] = []
    private var poller = Poller()
    /// Poller index → (member, is the SUB).
    private var owners: [(member: Int, subscriber: Bool)] = []
    /// Members whose sockets were replaced since the poller was built: their poller entries are stale
    /// until `rebuildPoller()`, which runs once per pass, not once per reconnect (a failover moves
    /// every node at once: rebuilding per node made following O(nodes²)).
    private var changed: Set<Int> = []
    /// Counted since the last `resetCounts()`.
    private(set) var registrations = 0
    private(set) var snapshotRequests = 0
    private(set) var replayRequests = 0
    /// When (monotonic ns) each node first followed another coordinator than `leaving`.
    private(set) var followedAt: [UInt64?] = []
    private var leaving: String?

    private let commandEndpoints: [String]
    private let eventEndpoints: [String]
    private let heartbeatMilliseconds: Int64
    private let liveness: Int64
    private let apps: Int

    /// An empty fleet; `add` starts nodes.
    init(context: ZMQContext, commandEndpoints: [String], eventEndpoints: [String], heartbeatMilliseconds: Int64,
         liveness: Int64 = 3, apps: Int = 3) {
        self.context = context
        self.commandEndpoints = commandEndpoints
        self.eventEndpoints = eventEndpoints
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
        self.apps = apps
    }

    /// Starts the nodes numbered `numbers` (`sim-NNNN`): each registers and asks for a snapshot, as
    /// `camsync node` does at start.
    func add(_ numbers: [Int]) throws {
        let now = Self.now()
        for number in numbers {
            let index = members.count
            let node = SimulatedNode.id(number)
            let settings = NodeSettings(config: NodeConfig(registration: SimulatedNode.registration(node, apps: apps)),
                                        coordinatorCommandEndpoint: commandEndpoints.joined(separator: ","),
                                        coordinatorEventEndpoint: eventEndpoints.joined(separator: ","),
                                        controlEndpoint: "", heartbeatIntervalMilliseconds: heartbeatMilliseconds,
                                        liveness: liveness)
            var session = NodeSession(settings: settings, now: now)
            let dealer = try NodeSockets.dealer(context, settings, endpoint: session.followed.commandEndpoint,
                                                serverKey: session.followedServerKey)
            let subscriber = try NodeSockets.subscriber(context, settings, topics: session.subscriptions)
            let actions = session.start(now: now)
            members.append(Member(session: session, dealer: dealer, subscriber: subscriber, deadline: session.nextDeadline,
                                  subscribed: session.subscriptions))
            followedAt.append(nil)
            try execute(actions, for: index)
        }
        rebuildPoller()
    }

    var count: Int { members.count }

    /// Every node registered, synced and following `endpoint`.
    func allSynced(following endpoint: String) -> Bool {
        members.allSatisfy { $0.session.registered && $0.session.replica.phase == .synced && $0.session.followed.commandEndpoint == endpoint }
    }

    /// How far joining got: nodes registered, synced, and how many follow each coordinator.
    var joining: (registered: Int, synced: Int, following: [String: Int]) {
        (members.filter(\.session.registered).count, members.filter { $0.session.replica.phase == .synced }.count,
         Dictionary(grouping: members, by: \.session.followed.commandEndpoint).mapValues(\.count))
    }

    /// Every node follows `endpoint`.
    func allFollow(_ endpoint: String) -> Bool { members.allSatisfy { $0.session.followed.commandEndpoint == endpoint } }

    /// From now on (the coordinator at `endpoint` was just killed): note when each node moves to
    /// another one, and count registrations and snapshot requests from zero.
    func watch(leaving endpoint: String) {
        leaving = endpoint
        followedAt = members.map { $0.session.followed.commandEndpoint == endpoint ? nil : Clock.monotonicNanoseconds() }
        registrations = 0
        snapshotRequests = 0
    }

    /// When the last pass over the sockets began (monotonic ns).
    private var lastPass: UInt64 = 0
    static let passNanoseconds: UInt64 = 1_000_000

    /// Serves every node for up to `milliseconds`: what arrived, then the timers that are due.
    func pump(milliseconds: Int) throws {
        let until = Clock.monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        repeat {
            // One pass a millisecond at most: a poll looks at every socket of the shard, so a pass per
            // message (20,000 batches/s reach 1,000 nodes) spent the benchmark's CPU in poll(2).
            let sinceLast = Clock.monotonicNanoseconds() &- lastPass
            if sinceLast < Self.passNanoseconds { usleep(UInt32((Self.passNanoseconds - sinceLast) / 1000)) }
            lastPass = Clock.monotonicNanoseconds()
            if !changed.isEmpty { rebuildPoller() }
            let earliest = members.map(\.deadline).min() ?? Int64.max
            let wait = max(0, min(Int64(milliseconds), earliest - Clock.monotonicMilliseconds()))
            for ready in try poller.poll(timeoutMs: Int(wait)) {
                let owner = owners[ready.index]
                guard !changed.contains(owner.member) else { continue }   // its sockets were just replaced
                try drain(owner.member, subscriber: owner.subscriber)
            }
            let now = Self.now()
            for index in members.indices where members[index].deadline <= now.monotonic {
                try execute(members[index].session.tick(now: now), for: index)
            }
        } while Clock.monotonicNanoseconds() < until
    }

    func close() {
        for member in members {
            member.dealer.close()
            member.subscriber.close()
        }
        members.removeAll()
    }

    private func drain(_ index: Int, subscriber: Bool) throws {
        var taken = 0
        while taken < 256 {
            let socket = subscriber ? members[index].subscriber : members[index].dealer
            guard let message = try socket.receive(dontWait: true) else { return }
            taken += 1
            let now = Self.now()
            let actions = subscriber ? members[index].session.receivePublication(message.frames, now: now)
                                     : members[index].session.receiveReply(message.frames, now: now)
            try execute(actions, for: index)
            if changed.contains(index) { return }   // the socket just read may be closed
        }
    }

    private func execute(_ actions: [NodeAction], for index: Int) throws {
        for action in actions {
            switch action {
            case .send(let envelope):
                _ = try? members[index].dealer.send([envelope.serializedBytes()], dontWait: true)
            case .reconnect(let endpoint, let serverKey, let reopenSubscriber):
                members[index].dealer.close()
                members[index].dealer = try NodeSockets.dealer(context, members[index].session.settings, endpoint: endpoint,
                                                               serverKey: serverKey)
                if reopenSubscriber {
                    members[index].subscriber.close()
                    members[index].subscriber = try NodeSockets.subscriber(context, members[index].session.settings,
                                                                           topics: members[index].session.subscriptions)
                    members[index].subscribed = members[index].session.subscriptions
                }
                changed.insert(index)
            case .count(.registrationSent): registrations += 1
            case .count(.snapshotRequested): snapshotRequests += 1
            case .count(.replayRequested): replayRequests += 1
            case .count, .replyToControl, .appendHistory, .log: break
            }
        }
        NodeSockets.follow(members[index].session.subscriptions, on: members[index].subscriber,
                           subscribed: &members[index].subscribed)
        members[index].deadline = members[index].session.nextDeadline
        if let leaving, followedAt[safe: index] == .some(nil), members[index].session.followed.commandEndpoint != leaving {
            followedAt[index] = Clock.monotonicNanoseconds()
        }
    }

    private func rebuildPoller() {
        poller = Poller()
        owners = []
        for (index, member) in members.enumerated() {
            poller.register(member.dealer, for: .readable)
            owners.append((index, false))
            poller.register(member.subscriber, for: .readable)
            owners.append((index, true))
        }
        changed.removeAll(keepingCapacity: true)
    }

    /// Each node holds two sockets and four connections (and libzmq an eventfd per socket): raise
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
