public import CamsyncNode
public import ZeroMQ

/// The DEALER a node holds to one coordinator, as `camsync node` opens it (and the benchmarks'
/// fleet of node sessions, `NodeFleet`): its routing id is the node id, under CURVE it presents the
/// node's key and expects that coordinator's (`NodeSession.serverKey(forCommandEndpoint:)`: the
/// session decides whom it believes).
public enum NodeSockets {
    /// libzmq's first reconnect after a connection drops (it adds up to as much again at random) and
    /// the most its doubling reaches: a fifth of the heartbeat interval, at least 100 ms, and 4 times
    /// that, at least 2 s (at the default 500 ms: 100 ms and 2 s; a fleet's 5 s: 1 s and 4 s). A
    /// coordinator that drops every connection at once has died or is restarting; a fleet of 10,000
    /// retrying every 100–200 ms spent most of its CPU on refused connections while a new leader took
    /// over (docs/PERFORMANCE.md "HA leader kill with a fleet"). Both stay well inside the liveness
    /// timeout, so a node is back with a restarted coordinator before it would be declared dead.
    public static func reconnectMilliseconds(heartbeatInterval: Int64) -> (first: Int, most: Int) {
        let first = max(100, Int(heartbeatInterval / 5))
        return (first, max(2_000, first * 4))
    }

    public static func dealer(_ context: ZMQContext, _ settings: NodeSettings, endpoint: String, serverKey: String?) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .dealer)
        let reconnect = reconnectMilliseconds(heartbeatInterval: settings.heartbeatIntervalMilliseconds)
        try socket.set([.linger(milliseconds: 0), .routingID(Array(settings.config.id.rawValue.utf8)),
                        .reconnectInterval(milliseconds: reconnect.first), .reconnectIntervalMax(milliseconds: reconnect.most),
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
