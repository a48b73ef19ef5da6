public import CamsyncWire
public import ZeroMQ

/// A SUB socket on the coordinator's event endpoint: event batches and heartbeats.
public final class EventSubscriber {
    private let socket: ZMQSocket
    private let poller = Poller()

    /// `topics`: prefixes to subscribe to; the default is everything (`ev.` and `hb`). `endpoint` may be
    /// a comma-separated list (every coordinator of an HA cluster: only the leader publishes).
    public init(context: ZMQContext, endpoint: String, topics: [String] = [EventTopic.everyBatch, EventTopic.heartbeat], curve: ClientCurve? = nil) throws {
        socket = try ZMQSocket(context, .sub)
        try socket.set([.linger(milliseconds: 0), .receiveHighWaterMark(1_000_000), .maxMessageSize(256 << 20)])
        if let curve {
            try socket.set([.curvePublicKey(curve.publicKey), .curveSecretKey(curve.secretKey)])
        }
        for topic in topics { try socket.set(.subscribe(Array(topic.utf8))) }
        // Each endpoint with the key of the coordinator there (libzmq takes it at connect).
        for one in endpoint.split(separator: ",").map(String.init) {
            if let curve {
                guard let key = curve.serverKey(forEventEndpoint: one) else {
                    socket.close()
                    throw ClientError.untrusted(endpoint: one)
                }
                try socket.set(.curveServerKey(key))
            }
            try socket.connect(one)
        }
        poller.register(socket, for: .readable)
    }

    /// The next published message (topic, envelope), or nil after `timeoutMilliseconds`.
    /// Undecodable messages are skipped.
    public func next(timeoutMilliseconds: Int) throws -> (topic: String, envelope: Envelope)? {
        if let message = try receiveOne() { return message }
        guard try !poller.poll(timeoutMs: timeoutMilliseconds).isEmpty else { return nil }
        return try receiveOne()
    }

    private func receiveOne() throws -> (topic: String, envelope: Envelope)? {
        while let message = try socket.receive(dontWait: true) {
            guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) else { continue }
            return (String(decoding: message.frames[0], as: UTF8.self), envelope)
        }
        return nil
    }

    public func close() { socket.close() }
}
