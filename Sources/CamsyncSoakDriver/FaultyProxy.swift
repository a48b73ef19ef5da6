import CamsyncRuntime
import CamsyncWire
import Foundation
public import ZeroMQ

/// A request/reply proxy between soak clients and the coordinator that drops, duplicates and
/// delays messages on demand (Jepsen-style network faults at the message level). Runs on its
/// own thread; clients connect a DEALER to `frontend`. Replies are routed back by request id.
public final class FaultyProxy: @unchecked Sendable {
    public struct Faults: Sendable, Equatable {
        public var dropRequest: Double = 0
        public var duplicateRequest: Double = 0
        public var delayRequest: Double = 0
        public var dropReply: Double = 0
        public var maxDelayMilliseconds: Int64 = 300
        public init() {}
        public static let none = Faults()
        public static let hostile: Faults = {
            var f = Faults()
            f.dropRequest = 0.1
            f.duplicateRequest = 0.1
            f.delayRequest = 0.2
            f.dropReply = 0.1
            return f
        }()
    }

    /// What the proxy did, by kind.
    public struct Counts: Sendable, Equatable {
        public var forwarded = 0, droppedRequests = 0, duplicated = 0, delayed = 0, droppedReplies = 0
    }

    public let frontend: String
    private let backendEndpoint: String
    private let context: ZMQContext
    private let faults = Locked(Faults.none)
    private let counts = Locked(Counts())
    private let stopFlag = Locked(false)
    private var thread: JoinableThread?
    private let seed: UInt64

    public init(context: ZMQContext, frontend: String, backend: String, seed: UInt64) {
        self.context = context
        self.frontend = frontend
        self.backendEndpoint = backend
        self.seed = seed
    }

    public func setFaults(_ new: Faults) { faults.withLock { $0 = new } }
    public var currentCounts: Counts { counts.withLock { $0 } }

    public func start() throws {
        let ready = Locked<(any Error)?>(nil)
        let started = DispatchSemaphore(value: 0)
        let context = self.context, frontend = self.frontend, backend = self.backendEndpoint
        let faults = self.faults, counts = self.counts, stopFlag = self.stopFlag, seed = self.seed
        thread = try JoinableThread {
            do {
                let front = try ZMQSocket(context, .router)
                let back = try ZMQSocket(context, .dealer)
                try front.set(.linger(milliseconds: 0))
                try back.set([.linger(milliseconds: 0), .reconnectInterval(milliseconds: 50), .reconnectIntervalMax(milliseconds: 500)])
                try front.bind(frontend)
                // Several backends (HA coordinators): the DEALER spreads requests over them; a
                // standby's NOT_LEADER sends the client round again (K5: same request id).
                for endpoint in backend.split(separator: ",") { try back.connect(String(endpoint)) }
                started.signal()
                var loop = ProxyLoop(front: front, back: back, faults: faults, counts: counts, rng: SplitMix64(seed: seed))
                while !stopFlag.withLock({ $0 }) { try loop.turn() }
                front.close()
                back.close()
            } catch {
                ready.withLock { $0 = error }
                started.signal()
            }
        }
        started.wait()
        if let error = ready.withLock({ $0 }) { throw error }
    }

    public func stop() {
        stopFlag.withLock { $0 = true }
        thread?.join()
    }
}

/// The proxy's loop state, confined to its thread.
private struct ProxyLoop {
    let front: ZMQSocket
    let back: ZMQSocket
    let faults: Locked<FaultyProxy.Faults>
    let counts: Locked<FaultyProxy.Counts>
    var rng: SplitMix64
    var routes: [UInt64: [UInt8]] = [:]
    var delayed: [(due: Int64, bytes: [UInt8])] = []
    let poller = Poller()

    init(front: ZMQSocket, back: ZMQSocket, faults: Locked<FaultyProxy.Faults>, counts: Locked<FaultyProxy.Counts>, rng: SplitMix64) {
        self.front = front
        self.back = back
        self.faults = faults
        self.counts = counts
        self.rng = rng
        poller.register(front, for: .readable)
        poller.register(back, for: .readable)
    }

    mutating func turn() throws {
        let now = Clock.monotonicMilliseconds()
        let nextDue = delayed.map(\.due).min().map { max(0, $0 - now) } ?? 50
        _ = try poller.poll(timeoutMs: Int(min(nextDue, 50)))
        let f = faults.withLock { $0 }
        while let message = try front.receive(dontWait: true) {
            guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) else { continue }
            routes[envelope.requestID] = message.frames[0]
            if routes.count > 200_000 { routes.removeAll() }
            let bytes = message.frames[1]
            if chance(f.dropRequest) { counts.withLock { $0.droppedRequests += 1 }; continue }
            if chance(f.delayRequest) {
                let delay = Int64(rng.next() % UInt64(max(1, f.maxDelayMilliseconds)))
                delayed.append((now + delay, bytes))
                counts.withLock { $0.delayed += 1 }
                continue
            }
            _ = try back.send([bytes], dontWait: true)
            counts.withLock { $0.forwarded += 1 }
            if chance(f.duplicateRequest) {
                _ = try back.send([bytes], dontWait: true)
                counts.withLock { $0.duplicated += 1 }
            }
        }
        let due = delayed.filter { $0.due <= Clock.monotonicMilliseconds() }
        delayed.removeAll { $0.due <= Clock.monotonicMilliseconds() }
        for item in due { _ = try back.send([item.bytes], dontWait: true) }
        while let message = try back.receive(dontWait: true) {
            guard message.frames.count == 1, let envelope = try? Envelope.decode(message.frames[0]),
                  let route = routes[envelope.requestID] else { continue }
            if chance(f.dropReply) { counts.withLock { $0.droppedReplies += 1 }; continue }
            _ = try? front.send([route, message.frames[0]], dontWait: true)
        }
    }

    private mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double(rng.next() % 1_000_000) / 1_000_000 < p
    }
}
