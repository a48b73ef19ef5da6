import CamsyncRuntime
import CamsyncStats
import CamsyncWire
import ZeroMQ

/// `fleet`'s commands: every device in turn stops or starts app 0's camera session (each holds its
/// camera after `SimulatedNode.claim`), at `perDevice` commands per device per second spread evenly
/// over the devices, through one DEALER speaking as each device (lab mode trusts the sender). A
/// command's delivery runs from its send to the moment the last node of its group (the device and
/// its display) applied its batch: the ack names the batch's sequence, the shards report each
/// group's applied position.
struct FleetLoad {
    struct Outcome {
        var delivery: LatencySummary
        /// Command sent → its ack received by the bench (the same commands).
        var ack: LatencySummary
        var acked = 0
        var refused = 0
        /// Acknowledged, but not applied by both nodes of the group within 10 s after the last send.
        var undelivered = 0
        /// Commands per second sent over the window.
        var rate = 0.0
    }

    private var delivery = LatencyRecorder()
    private var acks = LatencyRecorder()
    /// request id → (device, sent ns)
    private var unacked: [UInt64: (device: Int, sent: UInt64)] = [:]
    /// Acked batches whose group has not applied them yet: device → [(sequence, sent ns)].
    private var awaiting: [Int: [(sequence: UInt64, sent: UInt64)]] = [:]
    /// The last positions each group reported (an `applied` report may overtake the ack).
    private var reached: [Int: [(sequence: UInt64, at: UInt64)]] = [:]
    private var outcome = Outcome(delivery: LatencyRecorder().summary, ack: LatencyRecorder().summary)

    static func run(_ dealer: ProtocolDealer, shards: FleetShards, perDevice: Double, seconds: Double) throws -> Outcome {
        var load = FleetLoad()
        return try load.run(dealer, shards: shards, perDevice: perDevice, seconds: seconds)
    }

    private mutating func run(_ dealer: ProtocolDealer, shards: FleetShards, perDevice: Double, seconds: Double) throws -> Outcome {
        let devices = shards.devices
        let interval = 1e9 / (perDevice * Double(devices))
        var holding = [Bool](repeating: true, count: devices)
        var cursor = 0, sent = 0
        let start = Clock.monotonicNanoseconds()
        let end = start + UInt64(seconds * 1e9)
        let poller = Poller()
        poller.register(dealer.socket, for: .readable)
        poller.register(shards.reports, for: .readable)
        while true {
            let now = Clock.monotonicNanoseconds()
            if now < end {
                // Each send when due (at most 1 ms late: the loop waits 1 ms at least between passes).
                while Double(start) + Double(sent) * interval <= Double(Clock.monotonicNanoseconds()) {
                    let node = SimulatedNode.id(cursor)
                    let at = Clock.monotonicNanoseconds()
                    let id = try dealer.send(holding[cursor] ? SimulatedNode.stop(node) : SimulatedNode.start(node), as: node)
                    unacked[id] = (cursor, at)
                    holding[cursor].toggle()
                    cursor = (cursor + 1) % devices
                    sent += 1
                }
            } else if unacked.isEmpty && awaiting.values.allSatisfy(\.isEmpty) || now > end + 10_000_000_000 {
                break
            }
            while let message = try dealer.socket.receive(dontWait: true) { take(try ProtocolDealer.decode(message)) }
            try shards.take { device, sequence, at in applied(device, sequence, at) }
            let wait = now < end ? max(1, Int((Double(start) + Double(sent) * interval - Double(now)) / 1e6)) : 5
            _ = try poller.poll(timeoutMs: wait)
        }
        outcome.delivery = delivery.summary
        outcome.ack = acks.summary
        outcome.undelivered = unacked.count + awaiting.values.map(\.count).reduce(0, +)
        outcome.rate = Double(sent) / seconds
        return outcome
    }

    private mutating func take(_ reply: Envelope) {
        guard let (device, sent) = unacked.removeValue(forKey: reply.requestID) else { return }
        switch reply.body {
        case .ack(let ack)?:
            outcome.acked += 1
            acks.record(from: sent, to: Clock.monotonicNanoseconds())
            if let at = reached[device]?.first(where: { $0.sequence >= ack.sequence })?.at {
                delivery.record(from: sent, to: at)
            } else {
                awaiting[device, default: []].append((ack.sequence, sent))
            }
        default:
            outcome.refused += 1
        }
    }

    private mutating func applied(_ device: Int, _ sequence: UInt64, _ at: UInt64) {
        var positions = reached[device] ?? []
        positions.append((sequence, at))
        reached[device] = Array(positions.suffix(8))
        guard var waiting = awaiting[device] else { return }
        for batch in waiting where batch.sequence <= sequence { delivery.record(from: batch.sent, to: at) }
        waiting.removeAll { $0.sequence <= sequence }
        awaiting[device] = waiting.isEmpty ? nil : waiting
    }
}
