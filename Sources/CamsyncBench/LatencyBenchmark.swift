import CamsyncProcessLab
import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ

/// `latency`: camera claim → grant round trip. A simulated node sends `start_session` for its
/// app; the round trip ends when both its `ack` (DEALER) and the batch with the `camera_granted`
/// event (an observer's SUB to `all`) have arrived. `stop_session` (not measured) releases the camera
/// in between. N simulated nodes are registered, each holding its own camera, and heartbeat every
/// interval/2, against a coordinator with the default 500 ms × 3 liveness. A third run (journal off)
/// has the web view watched while it measures: the coordinator serves `--http`, and two browsers-like
/// clients follow `/events`, one reading as fast as it can and one stalled at 1 byte/s (`curl`).
public enum LatencyBenchmark {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "latency")
        for (durability, watched) in [("off", false), ("full", false), ("off", true)] {
            if watched, Self.curl == nil {
                result.notes.append("web view watched: skipped (no curl here; `make deps` installs it)")
                continue
            }
            let (rows, checks, notes) = try runOne(settings, durability: durability, watched: watched)
            result.rows += rows
            result.targets += checks
            result.notes += notes
        }
        result.notes.append("a claim = start_session of an app whose session is configured and in full screen; measured from "
            + "send to the later of the ack and the camera_granted batch on a SUB to `all`; the floor is a raw DEALER/ROUTER echo "
            + "between two processes with a message of the request's size")
        return result
    }

    static let curl: String? = ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func runOne(_ settings: BenchSettings, durability: String, watched: Bool) throws -> ([BenchRow], [TargetCheck], [String]) {
        let dir = try settings.directory("latency-\(durability)" + (watched ? "-watched" : ""))
        let count = settings.pick(20_000, quick: 800)
        let warmup = settings.pick(1000, quick: 200)
        let measured = SimulatedNode.id(0)
        let startBytes = Envelope.request(SimulatedNode.start(measured), sender: measured, requestID: 1 << 40).serializedBytes()

        settings.progress("latency(\(durability)): floor, \(startBytes.count)-byte round trips")
        let floor = try Floor.measure(executable: settings.executable, directory: dir, size: startBytes.count,
                                      count: count, warmup: warmup)

        let http = watched ? "127.0.0.1:\(BenchSystem.freeTCPPort())" : nil
        let coordinator = try CoordinatorProcess(executable: settings.executable, directory: dir,
            options: .init(durability: durability, heartbeatMs: 500, liveness: 3, prefix: settings.coordinatorPrefix, http: http))
        // The physical floor of a durable claim: the round trip plus one sync of the journal's filesystem.
        let journalSync = durability == "full"
            ? try DiskSync.measure(directory: dir + "/data", count: settings.pick(1000, quick: 200)) : nil
        try coordinator.launch()
        defer { coordinator.stop() }
        var watchers: [ManagedProcess] = []
        defer { for watcher in watchers { watcher.stop(grace: 1) } }
        let result = try ClaimRoundTrips.measure(
            settings, label: "latency(\(durability))", commandEndpoint: coordinator.commandEndpoint,
            eventEndpoint: coordinator.eventEndpoint, count: count, warmup: warmup,
            waitUntilServing: { try BenchWait.serving($0, coordinator: coordinator) },
            beforeMeasuring: {
                guard let http, let curl = Self.curl else { return }
                settings.progress("latency(\(durability)): two web view clients on http://\(http)/events (one reading, one stalled)")
                for (name, limit) in [("reader", [String]()), ("stalled", ["--limit-rate", "1"])] {
                    watchers.append(try ManagedProcess(name: "web-\(name)", executable: curl,
                        arguments: ["-sN", "--max-time", "600"] + limit + ["http://\(http)/events", "-o", "/dev/null"],
                        logPath: "\(dir)/web-\(name).log"))
                }
                Thread.sleep(forTimeInterval: 0.5)
                guard watchers.allSatisfy(\.isRunning) else { throw BenchError("a web view client ended early: see \(dir)") }
            })
        let rss = coordinator.rssMB
        let label = (durability == "off" ? "journal off" : "journal \(durability)") + (watched ? ", web view watched" : "")
        let s = result.claim
        var rows = [
            BenchRow(benchmark: "floor", scenario: "raw DEALER/ROUTER echo, \(startBytes.count) B, 2 processes",
                     latency: floor, floorP50: floor.p50),
        ]
        var checks: [TargetCheck] = []
        if let journalSync {
            let physical = floor.p50 + journalSync.p50
            rows.append(BenchRow(benchmark: "floor", scenario: "disk: 4 KiB append + fdatasync, journal's filesystem",
                                 latency: journalSync))
            rows.append(BenchRow(benchmark: "latency", scenario: "claim → ack + grant, \(label), \(settings.nodes) nodes",
                                 latency: s, rssMB: rss, floorP50: physical))
            checks.append(TargetCheck(figure: "claim→grant p50, journal \(durability)", measured: s.p50, .atMost, physical + 50,
                                      unit: .microseconds,
                                      basis: "echo p50 \(ReportFormatter.duration(microseconds: floor.p50)) + fdatasync p50 "
                                          + "\(ReportFormatter.duration(microseconds: journalSync.p50)) + 50µs"))
        } else {
            rows.append(BenchRow(benchmark: "latency", scenario: "claim → ack + grant, \(label), \(settings.nodes) nodes",
                                 latency: s, rssMB: rss, floorP50: floor.p50))
        }
        rows.append(BenchRow(benchmark: "latency", scenario: "claim → ack only, \(label)", latency: result.ack,
                             floorP50: journalSync.map { floor.p50 + $0.p50 } ?? floor.p50))
        if watched {
            checks.append(TargetCheck(figure: "claim→grant p99, journal off, web view watched", measured: s.p99, .atMost, 1000,
                                      unit: .microseconds))
        } else if durability == "off" {
            checks.append(TargetCheck(figure: "claim→grant p50, journal off", measured: s.p50, .atMost, 2 * floor.p50,
                                      unit: .microseconds, basis: "2 × floor p50 \(ReportFormatter.duration(microseconds: floor.p50))"))
            checks.append(TargetCheck(figure: "claim→grant p99, journal off", measured: s.p99, .atMost, 1000, unit: .microseconds))
        } else {
            checks.append(TargetCheck(figure: "claim→grant p99, journal \(durability)", measured: s.p99, .atMost, 5000, unit: .microseconds))
        }
        var notes: [String] = []
        if result.missingGrant > 0 { notes.append("\(label): \(result.missingGrant) start_session batches had no camera_granted event") }
        if let journalSync, s.p50 < journalSync.p50 {
            notes.append("\(label): claim → grant p50 is below one fdatasync of the journal's filesystem: the journal did not "
                + "sync each group commit (see docs/PERFORMANCE.md \"High availability\")")
        }
        if journalSync != nil {
            notes.append("\(label): the floor of the claim rows is the echo p50 + one 4 KiB append + fdatasync p50 in the journal's "
                + "directory (SQLite in WAL mode with synchronous=FULL syncs the WAL once per group commit)")
        }
        return (rows, checks, notes)
    }
}

/// Keeps simulated nodes alive (K1): a `node_heartbeat` per node every `intervalMs`.
struct Heartbeats {
    let dealer: ProtocolDealer
    let nodes: [String]
    let intervalMs: UInt64
    var next: UInt64 = 0

    init(dealer: ProtocolDealer, nodes: [String], intervalMs: UInt64) {
        self.dealer = dealer
        self.nodes = nodes
        self.intervalMs = intervalMs
    }

    mutating func tick() {
        let now = Clock.monotonicNanoseconds()
        guard now >= next else { return }
        next = now + intervalMs * 1_000_000
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        for node in nodes { try? dealer.heartbeat(as: node, timeMilliseconds: wall) }
    }
}

/// Waiting for replies and batches.
enum BenchWait {
    struct RoundTrip {
        var sent: UInt64
        var ack: UInt64
        var batch: UInt64
        var sequence: UInt64
        var granted: Bool
    }

    /// Until the coordinator answers a snapshot request.
    static func serving(_ dealer: ProtocolDealer, coordinator: CoordinatorProcess, timeoutSeconds: Double = 60) throws {
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        while Clock.monotonicNanoseconds() < deadline {
            if try dealer.snapshot(timeoutMilliseconds: 200) != nil {
                // Requests that timed out while the coordinator was starting were queued and are answered
                // now: read past them (up to the answer to one more), or the caller would take them for its own.
                let last = dealer.takeRequestID()
                try dealer.sendBytes(Envelope.snapshotRequest(sender: Envelope.adminSender, requestID: last).serializedBytes())
                while let reply = try dealer.receive(timeoutMilliseconds: 10_000), reply.requestID != last {}
                return
            }
            if coordinator.process?.isRunning == false { break }
        }
        throw BenchError("coordinator not serving: \(coordinator.logTail())")
    }

    /// The reply to `requestID`; throws on an error reply or a timeout.
    @discardableResult
    static func reply(_ dealer: ProtocolDealer, requestID: UInt64, timeoutMilliseconds: Int = 10_000) throws -> UInt64 {
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
        while Clock.monotonicNanoseconds() < deadline {
            guard let reply = try dealer.receive(timeoutMilliseconds: 100) else { continue }
            guard reply.requestID == requestID else { continue }
            switch reply.body {
            case .ack(let ack)?: return ack.sequence
            case .error(let error)?: throw BenchError("refused: \(error.code) \(error.message)")
            default: throw BenchError("unexpected reply")
            }
        }
        throw BenchError("no reply within \(timeoutMilliseconds) ms")
    }

    /// Sends `command` as `sender` and waits for both its ack and its batch on `subscriber`.
    static func roundTrip(_ dealer: ProtocolDealer, _ subscriber: BatchSubscriber, _ command: Command, as sender: String,
                          timeoutMilliseconds: Int = 10_000) throws -> RoundTrip {
        let poller = Poller()
        poller.register(dealer.socket, for: .readable)
        poller.register(subscriber.socket, for: .readable)
        let sent = Clock.monotonicNanoseconds()
        let requestID = try dealer.send(command, as: sender)
        var trip = RoundTrip(sent: sent, ack: 0, batch: 0, sequence: 0, granted: false)
        let deadline = sent + UInt64(timeoutMilliseconds) * 1_000_000
        while trip.ack == 0 || trip.batch == 0 {
            while trip.ack == 0, let message = try dealer.socket.receive(dontWait: true) {
                let reply = try ProtocolDealer.decode(message)
                guard reply.requestID == requestID else { continue }
                trip.ack = Clock.monotonicNanoseconds()
                switch reply.body {
                case .ack(let ack)?: trip.sequence = ack.sequence
                case .error(let error)?: throw BenchError("\(command) refused: \(error.code) \(error.message)")
                default: throw BenchError("unexpected reply")
                }
            }
            while trip.batch == 0, let message = try subscriber.socket.receive(dontWait: true) {
                guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]),
                      case .eventBatch(let batch)? = envelope.body,
                      batch.originNode == sender, batch.originRequestID == requestID else { continue }
                trip.batch = Clock.monotonicNanoseconds()
                trip.granted = batch.events.contains { if case .cameraGranted? = $0.kind { true } else { false } }
            }
            if trip.ack != 0 && trip.batch != 0 { break }
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { throw BenchError("\(command): no \(trip.ack == 0 ? "ack" : "batch") within \(timeoutMilliseconds) ms") }
            _ = try poller.poll(timeoutMs: Int((deadline - now) / 1_000_000) + 1)
        }
        return trip
    }
}
