import CamsyncWire
import ZeroMQ

/// A DEALER that sends one Envelope and waits (bounded) for the reply with the same request id.
/// Not Sendable: use it on one thread.
final class RequestSocket {
    let endpoint: String
    let hint: String
    private let socket: ZMQSocket
    private var nextRequestID: UInt64

    init(context: ZMQContext, endpoint: String, hint: String, curve: ClientCurve?, routingID: String? = nil) throws {
        self.endpoint = endpoint
        self.hint = hint
        socket = try ZMQSocket(context, .dealer)
        try socket.set([.linger(milliseconds: 0), .maxMessageSize(256 << 20)])
        if let routingID { try socket.set([.routingID(Array(routingID.utf8))]) }
        if let curve {
            guard let serverKey = curve.serverKey(forCommandEndpoint: endpoint) else {
                socket.close()
                throw ClientError.untrusted(endpoint: endpoint)
            }
            try socket.set([.curveServerKey(serverKey), .curvePublicKey(curve.publicKey), .curveSecretKey(curve.secretKey)])
        }
        try socket.connect(endpoint)
        var seed = SystemRandomNumberGenerator()
        nextRequestID = UInt64.random(in: 1...(UInt64.max >> 8), using: &seed)
    }

    func takeRequestID() -> UInt64 {
        nextRequestID += 1
        return nextRequestID
    }

    /// Sends `envelope` (its request id is kept) and returns the matching reply.
    func roundTrip(_ envelope: Envelope, timeoutMilliseconds: Int) throws -> Envelope {
        try roundTrip(bytes: envelope.serializedBytes(), requestID: envelope.requestID, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sends arbitrary bytes and returns the first reply (bad-input tests).
    func roundTrip(rawBytes: [UInt8], timeoutMilliseconds: Int) throws -> Envelope {
        try roundTrip(bytes: rawBytes, requestID: nil, timeoutMilliseconds: timeoutMilliseconds)
    }

    private func roundTrip(bytes: [UInt8], requestID: UInt64?, timeoutMilliseconds: Int) throws -> Envelope {
        // Never block on send: a DEALER whose only connection was refused (e.g. by CURVE/ZAP)
        // has nowhere to queue, and a blocking send would wait forever.
        guard try socket.send([bytes], dontWait: true) else {
            throw ClientError.unreachable(endpoint: endpoint, hint: hint, timeoutMilliseconds: 0)
        }
        let poller = Poller()
        poller.register(socket, for: .readable)
        var remaining = timeoutMilliseconds
        while remaining > 0 {
            let started = ContinuousClock.now
            guard try !poller.poll(timeoutMs: remaining).isEmpty else { break }
            while let message = try socket.receive(dontWait: true) {
                guard message.frames.count == 1 else { continue }
                let reply: Envelope
                do {
                    reply = try Envelope.decode(message.frames[0])
                } catch {
                    throw ClientError.unexpectedReply("\(error)")
                }
                if requestID == nil || reply.requestID == requestID { return reply }
            }
            let elapsed = started.duration(to: .now)
            remaining -= Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        }
        throw ClientError.unreachable(endpoint: endpoint, hint: hint, timeoutMilliseconds: timeoutMilliseconds)
    }

    func close() { socket.close() }
}
