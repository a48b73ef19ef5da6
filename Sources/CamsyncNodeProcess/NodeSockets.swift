public import CamsyncNode
public import ZeroMQ

/// The DEALER a node holds to one coordinator, as `camsync node` opens it (and the benchmarks'
/// fleet of node sessions, `NodeFleet`): its routing id is the node id, under CURVE it presents the
/// node's key and expects that coordinator's (`NodeSession.serverKey(forCommandEndpoint:)`: the
/// session decides whom it believes).
public enum NodeSockets {
    /// libzmq's first reconnect after a connection drops (it adds up to as much again at random), and
    /// the most its doubling reaches. A coordinator that drops every connection at once has died or is
    /// restarting: it is not back within 100 ms, and attempts every 100–200 ms from a whole fleet were
    /// most of the nodes' work while a new leader took over (docs/PERFORMANCE.md "HA leader kill
    /// with a fleet"). A connection that only dropped is noticed sooner by the session's own silence
    /// rule, which reopens it.
    public static let reconnectMilliseconds = 1_000
    public static let reconnectMaxMilliseconds = 4_000

    public static func dealer(_ context: ZMQContext, _ settings: NodeSettings, endpoint: String, serverKey: String?) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .dealer)
        try socket.set([.linger(milliseconds: 0), .routingID(Array(settings.config.id.rawValue.utf8)),
                        .reconnectInterval(milliseconds: reconnectMilliseconds), .reconnectIntervalMax(milliseconds: reconnectMaxMilliseconds),
                        .receiveHighWaterMark(100_000), .maxMessageSize(64 << 20)])
        if let security = settings.security {
            guard let serverKey else { throw ZMQError.invalidArgument("connect \(endpoint): no trusted coordinator key") }
            try socket.set([.curveServerKey(serverKey), .curvePublicKey(security.publicKey), .curveSecretKey(security.secretKey)])
        }
        try socket.connect(endpoint)
        return socket
    }
}

/// The connections a node keeps (docs/PROTOCOL.md "The feed"): one DEALER to each coordinator,
/// opened at start and kept, so that a new leader's first heartbeat reaches the node on a connection
/// it has already and following it costs no new connection. Requests go on the followed
/// coordinator's; whatever any coordinator sends comes on its own (a two-frame message is a push of
/// the feed, a one-frame message a reply).
public struct NodeConnections {
    /// One per coordinator, by command endpoint, in the order opened.
    public private(set) var endpoints: [String] = []
    public private(set) var sockets: [ZMQSocket] = []
    /// The index of the followed coordinator's connection.
    public private(set) var followed = 0

    /// Opens a connection to each of `session`'s coordinators and follows the one it follows.
    public init(_ context: ZMQContext, session: NodeSession) throws {
        for endpoint in session.settings.coordinatorCommandEndpoints {
            try open(context, session.settings, endpoint: endpoint, serverKey: session.serverKey(forCommandEndpoint: endpoint))
        }
        _ = try follow(context, session.settings, endpoint: session.followed.commandEndpoint,
                       serverKey: session.followedServerKey, reopen: false)
    }

    /// The followed coordinator's connection.
    public var followedSocket: ZMQSocket { sockets[followed] }

    /// Follows the coordinator at `endpoint` (a `NodeAction.follow`): its connection, opened if there is
    /// none, closed and opened afresh first when `reopen`. Returns whether a socket was opened (the
    /// caller watches it).
    public mutating func follow(_ context: ZMQContext, _ settings: NodeSettings, endpoint: String, serverKey: String?,
                                reopen: Bool) throws -> Bool {
        if let index = endpoints.firstIndex(of: endpoint) {
            followed = index
            guard reopen else { return false }
            sockets[index].close()
            sockets[index] = try NodeSockets.dealer(context, settings, endpoint: endpoint, serverKey: serverKey)
            return true
        }
        try open(context, settings, endpoint: endpoint, serverKey: serverKey)
        followed = sockets.count - 1
        return true
    }

    private mutating func open(_ context: ZMQContext, _ settings: NodeSettings, endpoint: String, serverKey: String?) throws {
        guard !endpoints.contains(endpoint) else { return }
        sockets.append(try NodeSockets.dealer(context, settings, endpoint: endpoint, serverKey: serverKey))
        endpoints.append(endpoint)
    }

    public func close() {
        for socket in sockets { socket.close() }
    }
}
