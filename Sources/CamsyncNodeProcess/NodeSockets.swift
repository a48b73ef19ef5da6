public import CamsyncNode
public import ZeroMQ

/// The two sockets a node holds to the coordinators, as `camsync node` opens them (and the
/// benchmarks' fleet of node sessions, `NodeFleet`).
public enum NodeSockets {
    /// The DEALER to the coordinator it follows (K6), with that coordinator's server key under CURVE
    /// (`NodeSession.followedServerKey`: the session decides whom it believes).
    public static func dealer(_ context: ZMQContext, _ settings: NodeSettings, endpoint: String, serverKey: String?) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .dealer)
        try socket.set([.linger(milliseconds: 0), .routingID(Array(settings.config.id.rawValue.utf8)),
                        .reconnectInterval(milliseconds: 100), .reconnectIntervalMax(milliseconds: 2000),
                        .maxMessageSize(64 << 20)])
        if let security = settings.security {
            guard let serverKey else { throw ZMQError.invalidArgument("connect \(endpoint): no trusted coordinator key") }
            try socket.set([.curveServerKey(serverKey), .curvePublicKey(security.publicKey), .curveSecretKey(security.secretKey)])
        }
        try socket.connect(endpoint)
        return socket
    }

    /// The SUB to every coordinator's event endpoint (it fans in), subscribed to `topics`.
    public static func subscriber(_ context: ZMQContext, _ settings: NodeSettings, topics: [String]) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .sub)
        try socket.set([.linger(milliseconds: 0), .receiveHighWaterMark(100_000),
                        .reconnectInterval(milliseconds: 100), .reconnectIntervalMax(milliseconds: 2000),
                        .maxMessageSize(64 << 20)])
        if let security = settings.security {
            try socket.set([.curvePublicKey(security.publicKey), .curveSecretKey(security.secretKey)])
        }
        // Subscribe before asking for the snapshot (Clone pattern).
        try socket.set(topics.map { .subscribe(Array($0.utf8)) })
        // libzmq takes a connection's options when it connects: each endpoint gets its coordinator's key.
        for endpoint in settings.coordinatorEventEndpoints {
            if let key = settings.security?.coordinators.key(forEventEndpoint: endpoint) { try socket.set(.curveServerKey(key)) }
            try socket.connect(endpoint)
        }
        return socket
    }

    /// Moves `socket` from the topics `subscribed` to `wanted` (a node's group changed), and notes it.
    public static func follow(_ wanted: [String], on socket: ZMQSocket, subscribed: inout [String]) {
        guard wanted != subscribed else { return }
        for topic in wanted where !subscribed.contains(topic) { try? socket.set(.subscribe(Array(topic.utf8))) }
        for topic in subscribed where !wanted.contains(topic) { try? socket.set(.unsubscribe(Array(topic.utf8))) }
        subscribed = wanted
    }
}
