import CamsyncProcessLab
import CamsyncStats
import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// `fanout`: one accepted command's batch reaching all of K SUB sockets (default 500), spread over
/// P processes (`camsync bench subscribers`, each one thread polling its sockets and decoding
/// every envelope as a node would). Each process reports, per sequence, when the first and the last
/// of its sockets received it (CLOCK_MONOTONIC is shared by the processes of one machine); the
/// figure is command sent → received by all K. The coordinator runs with the journal off so the
/// figure is the coordinator's turn plus the fan-out, not an fsync.
public enum FanoutBenchmark {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "fanout")
        let dir = try settings.directory("fanout")
        let k = settings.subscribers
        let processes = max(1, min(settings.subscriberProcesses, k))
        let context = try ZMQContext(ioThreads: 1)
        let node = SimulatedNode.id(0)

        // The floor: the same batch bytes from a plain PUB in this process to the same subscriber processes.
        let sample = Envelope.eventBatch(Camsync_V1_EventBatch(
            sequence: 1, term: 1, time: Instant(milliseconds: 1_700_000_000_000), originNode: NodeID(node),
            originRequestID: 1 << 40, command: SimulatedNode.start(node),
            events: [.cameraGranted(.builtIn(device: NodeID(node)), SimulatedNode.app(node), GrantToken(7)),
                     .sessionStarted(SimulatedNode.app(node))]))
        let raw = try ZMQSocket(context, .pub)
        defer { raw.close() }
        try raw.set([.linger(milliseconds: 0), .sendHighWaterMark(100_000)])
        let rawEndpoint = BenchSystem.loopbackEndpoint()
        try raw.bind(rawEndpoint)
        var rawSequence: UInt64 = 0
        // The topic the coordinator publishes every batch under, which the subscribers follow.
        let topic = Array(EventTopic.everyBatch.utf8)
        settings.progress("fanout: floor, raw PUB → \(k) SUB sockets in \(processes) processes")
        let floor = try measure(settings, dir: dir, label: "raw", events: rawEndpoint, context: context) {
            rawSequence += 1
            var envelope = sample
            if case .eventBatch(var batch)? = envelope.body {
                batch.sequence = rawSequence
                envelope.body = .eventBatch(batch)
            }
            let bytes = envelope.serializedBytes()
            let sent = Clock.monotonicNanoseconds()
            _ = try raw.send([topic, bytes])
            return (sent, rawSequence, nil)
        }
        raw.close()

        let coordinator = try CoordinatorProcess(executable: settings.executable, directory: dir,
            options: .init(durability: "off", heartbeatMs: 600_000, liveness: 3, prefix: settings.coordinatorPrefix))
        try coordinator.launch()
        defer { coordinator.stop() }
        let dealer = try ProtocolDealer(context: context, endpoint: coordinator.commandEndpoint)
        defer { dealer.close() }
        try BenchWait.serving(dealer, coordinator: coordinator)
        try SimulatedCluster.setUp(dealer: dealer, nodes: 0..<1, apps: 3, claim: true)
        var holding = true
        settings.progress("fanout: coordinator → \(k) SUB sockets in \(processes) processes")
        let real = try measure(settings, dir: dir, label: "coordinator", events: coordinator.eventEndpoint, context: context) {
            holding.toggle()
            let sent = Clock.monotonicNanoseconds()
            let id = try dealer.send(holding ? SimulatedNode.start(node) : SimulatedNode.stop(node), as: node)
            let sequence = try BenchWait.reply(dealer, requestID: id)
            return (sent, sequence, Clock.monotonicNanoseconds())
        }
        let sampleSize = sample.serializedBytes().count
        result.rows = [
            BenchRow(benchmark: "floor", scenario: "raw PUB → all \(k) SUBs, \(sampleSize) B batch", latency: floor.all.summary,
                     floorP50: floor.all.summary.p50),
            BenchRow(benchmark: "floor", scenario: "raw PUB: first SUB → last SUB (spread)", latency: floor.spread.summary),
            BenchRow(benchmark: "fanout", scenario: "command → batch on all \(k) SUBs (\(processes) procs)", latency: real.all.summary,
                     rssMB: coordinator.rssMB, floorP50: floor.all.summary.p50),
            BenchRow(benchmark: "fanout", scenario: "command → batch on the first SUB", latency: real.first.summary),
            BenchRow(benchmark: "fanout", scenario: "first SUB → last SUB (spread)", latency: real.spread.summary),
            BenchRow(benchmark: "fanout", scenario: "command → ack (same trials)", latency: real.ack.summary),
        ]
        result.targets.append(TargetCheck(figure: "event reaches all \(k) nodes, p99", measured: real.all.summary.p99, .atMost, 10_000,
                                          unit: .microseconds, basis: "command sent → last SUB, journal off; raw PUB floor p99 "
                                              + ReportFormatter.duration(microseconds: floor.all.summary.p99)))
        result.notes.append("fan-out figures start when the command is sent (an upper bound on publish → all received); "
            + "subscribers subscribe to \"\(EventTopic.everyBatch)\" and \"\(EventTopic.heartbeat)\" like full replicas and decode every envelope; the floor sends the "
            + "same batch bytes from a bare PUB socket to the same subscriber processes; all of it shares the machine's cores")
        return result
    }

    struct Distributions {
        var all = LatencyRecorder(), first = LatencyRecorder(), spread = LatencyRecorder(), ack = LatencyRecorder()
    }

    /// Starts the subscriber processes on `events`, publishes (with `publish`) until every process
    /// has heard on each socket, then measures trials; always stops the processes.
    static func measure(_ settings: BenchSettings, dir: String, label: String, events: String, context: ZMQContext,
                        publish: () throws -> (sent: UInt64, sequence: UInt64, acked: UInt64?)) throws -> Distributions {
        let trials = settings.pick(2000, quick: 150)
        let warmup = settings.pick(100, quick: 30)
        let processes = max(1, min(settings.subscriberProcesses, settings.subscribers))
        let perProcess = (0..<processes).map { settings.subscribers / processes + ($0 < settings.subscribers % processes ? 1 : 0) }
        let reports = try ZMQSocket(context, .pull)
        defer { reports.close() }
        try reports.set([.linger(milliseconds: 0), .receiveHighWaterMark(1_000_000)])
        let reportEndpoint = BenchSystem.loopbackEndpoint()
        try reports.bind(reportEndpoint)
        var children: [ManagedProcess] = []
        defer { for c in children { c.stop(grace: 1); ChildProcesses.unregister(c.pid) } }
        for (k, count) in perProcess.enumerated() {
            children.append(try ManagedProcess(name: "subscribers-\(k)", executable: settings.executable,
                arguments: ["bench", "subscribers", "--events", events, "--report", reportEndpoint,
                            "--count", "\(count)", "--id", "\(k)"],
                logPath: "\(dir)/subscribers-\(label)-\(k).log"))
            ChildProcesses.register(children.last!.pid)
        }
        var ready = Set<Int>()
        let deadline = Clock.monotonicNanoseconds() + 60_000_000_000
        while ready.count < processes {
            guard Clock.monotonicNanoseconds() < deadline else {
                throw BenchError("subscribers not ready (\(ready.count)/\(processes)): \(children.first?.logTail(5) ?? "")")
            }
            _ = try publish()
            BenchSystem.sleep(milliseconds: 20)
            while let message = try reports.receive(dontWait: true) {
                if let report = SubscriberReport(message.frames[0]), report.kind == .ready { ready.insert(report.process) }
            }
        }
        BenchSystem.sleep(milliseconds: 100)
        while try reports.receive(dontWait: true) != nil {}

        settings.progress("fanout(\(label)): \(warmup) warm-up + \(trials) measured batches")
        var d = Distributions()
        let poller = Poller()
        poller.register(reports, for: .readable)
        for i in 0..<(warmup + trials) {
            let (sent, sequence, acked) = try publish()
            var seen = 0
            var earliest = UInt64.max, latest: UInt64 = 0
            let trialDeadline = sent + 10_000_000_000
            while seen < processes {
                let now = Clock.monotonicNanoseconds()
                guard now < trialDeadline else { throw BenchError("batch \(sequence) did not reach every subscriber within 10 s") }
                _ = try poller.poll(timeoutMs: Int((trialDeadline - now) / 1_000_000) + 1)
                while let message = try reports.receive(dontWait: true) {
                    guard let report = SubscriberReport(message.frames[0]), report.kind == .batch,
                          report.sequence == sequence else { continue }
                    seen += 1
                    earliest = min(earliest, report.first)
                    latest = max(latest, report.last)
                }
            }
            if i >= warmup {
                d.all.record(from: sent, to: latest)
                d.first.record(from: sent, to: earliest)
                d.spread.record(from: earliest, to: latest)
                if let acked { d.ack.record(from: sent, to: acked) }
            }
        }
        return d
    }
}

/// What a subscriber process tells the bench process (one frame, text: "ready <p>" or "batch <p> <seq> <first> <last>").
public struct SubscriberReport: Equatable, Sendable {
    public enum Kind: String, Sendable { case ready, batch }
    public var kind: Kind
    public var process: Int
    public var sequence: UInt64 = 0
    public var first: UInt64 = 0
    public var last: UInt64 = 0

    public init(kind: Kind, process: Int, sequence: UInt64 = 0, first: UInt64 = 0, last: UInt64 = 0) {
        self.kind = kind
        self.process = process
        self.sequence = sequence
        self.first = first
        self.last = last
    }

    public init?(_ bytes: [UInt8]) {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard let head = parts.first, let kind = Kind(rawValue: String(head)), parts.count >= 2,
              let process = Int(parts[1]) else { return nil }
        self.init(kind: kind, process: process)
        if kind == .batch {
            guard parts.count == 5, let s = UInt64(parts[2]), let f = UInt64(parts[3]), let l = UInt64(parts[4]) else { return nil }
            sequence = s
            first = f
            last = l
        }
    }

    public var bytes: [UInt8] {
        Array((kind == .ready ? "ready \(process)" : "batch \(process) \(sequence) \(first) \(last)").utf8)
    }
}

/// The subscriber process's loop (`camsync bench subscribers`): `count` SUB sockets, one thread.
public enum SubscriberProcess {
    public static func run(events: String, report: String, count: Int, id: Int) throws -> Never {
        let context = try ZMQContext(ioThreads: 1)
        let push = try ZMQSocket(context, .push)
        try push.set([.linger(milliseconds: 1000), .sendHighWaterMark(1_000_000)])
        try push.connect(report)
        let poller = Poller()
        var sockets: [ZMQSocket] = []
        for _ in 0..<count {
            let sub = try ZMQSocket(context, .sub)
            try sub.set([.linger(milliseconds: 0), .receiveHighWaterMark(100_000), .subscribe(Array(EventTopic.everyBatch.utf8)),
                         .subscribe(Array("hb".utf8))])
            try sub.connect(events)
            poller.register(sub, for: .readable)
            sockets.append(sub)
        }
        var heard = [Bool](repeating: false, count: count)
        var heardCount = 0
        var pending: [UInt64: (count: Int, first: UInt64, last: UInt64)] = [:]
        let parent = getppid()
        while true {
            let ready = try poller.poll(timeoutMs: 1000)
            if ready.isEmpty && getppid() != parent { exit(0) }
            for item in ready {
                let socket = sockets[item.index]
                while let message = try socket.receive(dontWait: true) {
                    let now = Clock.monotonicNanoseconds()
                    guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) else { continue }
                    if !heard[item.index] {
                        heard[item.index] = true
                        heardCount += 1
                        if heardCount == count { _ = try push.send([SubscriberReport(kind: .ready, process: id).bytes]) }
                    }
                    guard case .eventBatch(let batch)? = envelope.body else { continue }
                    var entry = pending[batch.sequence] ?? (0, now, now)
                    entry.count += 1
                    entry.last = now
                    if entry.count == count {
                        pending[batch.sequence] = nil
                        _ = try push.send([SubscriberReport(kind: .batch, process: id, sequence: batch.sequence,
                                                            first: entry.first, last: entry.last).bytes])
                    } else {
                        pending[batch.sequence] = entry
                    }
                }
            }
            if pending.count > 10_000 { pending.removeAll() }
        }
    }
}
