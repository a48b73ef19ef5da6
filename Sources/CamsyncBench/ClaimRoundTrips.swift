import CamsyncStats
import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ

/// The measured loop of `latency` and `ha-latency`: N simulated nodes registered against a serving
/// coordinator, each holding its camera and heartbeating every 250 ms; node 0 alternates
/// `start_session` (measured: send → the later of its ack and the `camera_granted` batch on a SUB to `all`)
/// and `stop_session` (not measured).
enum ClaimRoundTrips {
    struct Result {
        var claim: LatencySummary
        var ack: LatencySummary
        var missingGrant: Int
    }

    /// `waitUntilServing` gets the setup DEALER before anything is sent; `beforeMeasuring` runs once the
    /// SUB sees batches (e.g. to start observers of the coordinator). `registered`: the nodes the
    /// caller has registered already (node 0 holding its camera), heartbeated instead of registering
    /// `settings.nodes`.
    static func measure(_ settings: BenchSettings, label: String, commandEndpoint: String, eventEndpoint: String,
                        count: Int, warmup: Int, registered: [String]? = nil, waitUntilServing: (ProtocolDealer) throws -> Void,
                        beforeMeasuring: () throws -> Void = {}) throws -> Result {
        let measured = SimulatedNode.id(0)
        let context = try ZMQContext(ioThreads: 1)
        let setup = try ProtocolDealer(context: context, endpoint: commandEndpoint)
        let dealer = try ProtocolDealer(context: context, endpoint: commandEndpoint)
        // Every batch, as an observer hears it: the measured node's are the only ones while it is measured.
        let subscriber = try BatchSubscriber(context: context, endpoint: eventEndpoint, topics: [EventTopic.everyBatch])
        defer { setup.close(); dealer.close(); subscriber.close() }
        try waitUntilServing(setup)
        if registered == nil {
            settings.progress("\(label): registering \(settings.nodes) simulated nodes, each claiming its camera")
            try SimulatedCluster.setUp(dealer: setup, nodes: 0..<settings.nodes, apps: 3, claim: true)
        }

        var heartbeats = Heartbeats(dealer: setup, nodes: registered ?? (0..<settings.nodes).map(SimulatedNode.id), intervalMs: 250)
        // The SUB is live once it sees a batch: release and re-claim until it does.
        var toggle = false
        var live = false
        for _ in 0..<200 where !live {
            toggle.toggle()
            let id = try dealer.send(toggle ? SimulatedNode.stop(measured) : SimulatedNode.start(measured), as: measured)
            _ = try BenchWait.reply(dealer, requestID: id)
            live = try subscriber.next(timeoutMilliseconds: 20) != nil
        }
        guard live else { throw BenchError("the SUB socket never received a batch") }
        try beforeMeasuring()
        if !toggle { _ = try BenchWait.roundTrip(dealer, subscriber, SimulatedNode.stop(measured), as: measured) }
        try subscriber.drain()

        settings.progress("\(label): \(warmup) warm-up + \(count) measured claim → grant round trips")
        var claim = LatencyRecorder(), ack = LatencyRecorder()
        var missingGrant = 0
        for i in 0..<(warmup + count) {
            heartbeats.tick()
            let t = try BenchWait.roundTrip(dealer, subscriber, SimulatedNode.start(measured), as: measured)
            if !t.granted { missingGrant += 1 }
            if i >= warmup {
                claim.record(from: t.sent, to: max(t.ack, t.batch))
                ack.record(from: t.sent, to: t.ack)
            }
            heartbeats.tick()
            _ = try BenchWait.roundTrip(dealer, subscriber, SimulatedNode.stop(measured), as: measured)
        }
        return Result(claim: claim.summary, ack: ack.summary, missingGrant: missingGrant)
    }
}
