import CamsyncRuntime
public import CamsyncPolicy
public import CamsyncWire
public import ZeroMQ

/// Simulated device nodes: what they register and the commands they send. Each is an iPad with
/// one front camera and `apps` apps `com.bench.app<k>`; app 0 is the one that claims the camera.
public enum SimulatedNode {
    public static func id(_ index: Int) -> String {
        let digits = String(index)
        return "sim-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    public static func app(_ node: String, _ k: Int = 0) -> AppID { AppID(device: NodeID(node), bundleID: "com.bench.app\(k)") }
    public static func camera(_ node: String) -> CameraID { CameraID(host: NodeID(node), name: "front") }

    public static func registration(_ node: String, apps: Int) -> NodeRegistration {
        let specs = (0..<max(1, apps)).map { AppSpec(bundleID: "com.bench.app\($0)", audioSessionCategory: .playAndRecord) }
        return NodeRegistration(node: NodeID(node), attributes: .device(DeviceAttributes(
            model: "iPad Pro (bench)", osMajor: 17,
            cameras: [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back)],
            apps: specs)))
    }

    /// The external display of device `index` (`simd-NNNN`): numbered as its device, so that a fleet's
    /// device and display pairs are found from either id.
    public static func displayID(_ index: Int) -> String { "simd-" + String(id(index).dropFirst("sim-".count)) }

    /// A display whose configuration names `device` (SPEC §1): it attaches itself to it.
    public static func displayRegistration(_ display: String, attachedTo device: String) -> NodeRegistration {
        NodeRegistration(node: NodeID(display), attributes: .display(DisplayAttributes(name: "bench display", attachedTo: NodeID(device))))
    }

    /// The commands that make app 0 hold the node's camera (claim done once in setup).
    public static func claim(_ node: String) -> [Command] {
        [.openFullScreen(app(node), trigger: .user),
         .configureSession(app(node), SessionConfiguration(camera: camera(node))),
         .startSession(app(node))]
    }

    /// The measured pair: `start_session` (→ camera_granted) and `stop_session` (→ camera_released).
    public static func start(_ node: String) -> Command { .startSession(app(node)) }
    public static func stop(_ node: String) -> Command { .stopSession(app(node)) }
}

/// A DEALER speaking the camsync protocol to the coordinator's ROUTER as any `sender`
/// (lab mode trusts the envelope's sender). Confined to one thread.
public final class ProtocolDealer {
    public let socket: ZMQSocket
    /// Random start: request ids must be unique per sender (K5 retry window, also across
    /// coordinator restarts), and several dealers may speak as the same simulated node.
    private var nextRequestID = UInt64.random(in: 1...(UInt64.max >> 8))

    /// `curve`: CURVE to a coordinator serving with `serverKey`, as the key pair `keys` (an admin's,
    /// so that it may speak as any sender); nil: lab mode.
    public init(context: ZMQContext, endpoint: String, curve: (serverKey: String, keys: CurveKeyPair)? = nil) throws {
        socket = try ZMQSocket(context, .dealer)
        try socket.set([.linger(milliseconds: 0), .maxMessageSize(256 << 20), .reconnectInterval(milliseconds: 5),
                        .sendHighWaterMark(1_000_000), .receiveHighWaterMark(1_000_000)])
        if let curve {
            try socket.set([.curveServerKey(curve.serverKey), .curvePublicKey(curve.keys.publicKey), .curveSecretKey(curve.keys.secretKey)])
        }
        try socket.connect(endpoint)
    }

    public func takeRequestID() -> UInt64 {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// Sends a command as `sender`; returns its request id.
    @discardableResult
    public func send(_ command: Command, as sender: String) throws -> UInt64 {
        let id = takeRequestID()
        _ = try socket.send([Envelope.request(command, sender: sender, requestID: id).serializedBytes()])
        return id
    }

    public func sendBytes(_ bytes: [UInt8]) throws { _ = try socket.send([bytes]) }

    public func heartbeat(as sender: String, timeMilliseconds: Int64) throws {
        _ = try socket.send([Envelope.nodeHeartbeat(sender: sender, time: Instant(milliseconds: timeMilliseconds)).serializedBytes()],
                            dontWait: true)
    }

    /// The next reply envelope, waiting at most `timeoutMilliseconds` (nil on timeout).
    public func receive(timeoutMilliseconds: Int) throws -> Envelope? {
        if let message = try socket.receive(dontWait: true) { return try Self.decode(message) }
        let poller = Poller()
        poller.register(socket, for: .readable)
        guard try !poller.poll(timeoutMs: timeoutMilliseconds).isEmpty else { return nil }
        guard let message = try socket.receive(dontWait: true) else { return nil }
        return try Self.decode(message)
    }

    static func decode(_ message: ZMQMessage) throws -> Envelope {
        guard message.frames.count == 1 else { throw BenchError("reply with \(message.frames.count) frames") }
        do {
            return try Envelope.decode(message.frames[0])
        } catch {
            throw BenchError("undecodable reply: \(error)")
        }
    }

    /// Sends every (command, sender) with up to `window` in flight and waits for all replies. A
    /// command answered OVERLOADED (the coordinator admits a bounded number of registrations a turn)
    /// is sent again after a short back-off, as a node does. Throws on the first other error reply
    /// unless `tolerateErrors`. Returns the last acked sequence.
    @discardableResult
    public func pipeline(_ requests: [(Command, String)], window: Int = 256, timeoutMilliseconds: Int = 30_000,
                         tolerateErrors: Bool = false) throws -> UInt64 {
        var next = 0, outstanding = 0, lastSequence: UInt64 = 0
        var sent: [UInt64: Int] = [:], again: [Int] = []
        while next < requests.count || outstanding > 0 || !again.isEmpty {
            while (next < requests.count || !again.isEmpty) && outstanding < window {
                let index = again.isEmpty ? next : again.removeFirst()
                if index == next { next += 1 }
                sent[try send(requests[index].0, as: requests[index].1)] = index
                outstanding += 1
            }
            guard let reply = try receive(timeoutMilliseconds: timeoutMilliseconds) else {
                throw BenchError("no reply from the coordinator within \(timeoutMilliseconds) ms (\(outstanding) outstanding)")
            }
            outstanding -= 1
            let index = sent.removeValue(forKey: reply.requestID)
            switch reply.body {
            case .ack(let ack)?: lastSequence = max(lastSequence, ack.sequence)
            case .error(let error)? where error.code == .overloaded && index != nil:
                again.append(index!)
                if outstanding == 0 || again.count >= window / 2 { BenchSystem.sleep(milliseconds: 10) }
            case .error(let error)?:
                if !tolerateErrors { throw BenchError("setup command refused: \(error.code) \(error.message)") }
            default: throw BenchError("unexpected reply \(String(describing: reply.body))")
            }
        }
        return lastSequence
    }

    /// A snapshot (sender "admin"), or nil on timeout.
    public func snapshot(timeoutMilliseconds: Int) throws -> Camsync_V1_Snapshot? {
        _ = try socket.send([Envelope.snapshotRequest(sender: Envelope.adminSender, requestID: takeRequestID()).serializedBytes()])
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
        while true {
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return nil }
            guard let reply = try receive(timeoutMilliseconds: Int((deadline - now) / 1_000_000) + 1) else { return nil }
            if case .snapshot(let snapshot)? = reply.body { return snapshot }
        }
    }

    public func close() { socket.close() }
}

/// A SUB on the coordinator's event socket (an observer's: `all`, `hb`).
public final class BatchSubscriber {
    public let socket: ZMQSocket
    private let poller = Poller()

    public init(context: ZMQContext, endpoint: String, topics: [String]) throws {
        socket = try ZMQSocket(context, .sub)
        try socket.set([.linger(milliseconds: 0), .receiveHighWaterMark(1_000_000), .maxMessageSize(256 << 20),
                        .reconnectInterval(milliseconds: 5)])
        for topic in topics { try socket.set(.subscribe(Array(topic.utf8))) }
        try socket.connect(endpoint)
        poller.register(socket, for: .readable)
    }

    /// The next decodable published envelope, or nil after the timeout.
    public func next(timeoutMilliseconds: Int) throws -> Envelope? {
        let deadline = Clock.monotonicNanoseconds() + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        while true {
            while let message = try socket.receive(dontWait: true) {
                if message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) { return envelope }
            }
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return nil }
            _ = try poller.poll(timeoutMs: Int((deadline - now) / 1_000_000) + 1)
        }
    }

    public func drain() throws { while try socket.receive(dontWait: true) != nil {} }

    public func close() { socket.close() }
}

/// Registers simulated nodes (and optionally makes each claim its camera) through one DEALER.
public enum SimulatedCluster {
    @discardableResult
    public static func setUp(dealer: ProtocolDealer, nodes: Range<Int>, apps: Int, claim: Bool) throws -> UInt64 {
        // The registrations first, all acknowledged, then the claims: a registration turned away
        // (OVERLOADED: a bounded number a turn) is sent again later, and a claim must not overtake it.
        let registered = try dealer.pipeline(nodes.map { i in
            let id = SimulatedNode.id(i)
            return (.registerNode(SimulatedNode.registration(id, apps: apps)), id)
        })
        guard claim else { return registered }
        return try dealer.pipeline(nodes.flatMap { i in SimulatedNode.claim(SimulatedNode.id(i)).map { ($0, SimulatedNode.id(i)) } })
    }

    /// Load after `setUp(…, claim: true)`: nodes `0..<nodes` stop and start their session in turn,
    /// up to `count` commands rounded up to whole stop/start pairs of every node (so each node ends
    /// holding its camera again), pipelined 1,000 at a time. Returns the last acked sequence.
    @discardableResult
    public static func alternate(_ count: Int, nodes: Int, through dealer: ProtocolDealer) throws -> UInt64 {
        let rounds = (max(0, count) + 2 * nodes - 1) / (2 * nodes)
        var remaining = rounds * 2 * nodes
        var holding = [Bool](repeating: true, count: nodes)
        var cursor = 0
        var last: UInt64 = 0
        while remaining > 0 {
            var batch: [(Command, String)] = []
            while batch.count < min(5000, remaining) {
                let id = SimulatedNode.id(cursor)
                batch.append((holding[cursor] ? SimulatedNode.stop(id) : SimulatedNode.start(id), id))
                holding[cursor].toggle()
                cursor = (cursor + 1) % nodes
            }
            last = try dealer.pipeline(batch, window: 1000)
            remaining -= batch.count
        }
        return last
    }
}
