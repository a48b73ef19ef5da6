public import CamsyncCluster
import CamsyncPolicy
import CamsyncWire
import Foundation
public import ZeroMQ
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
        let trials = settings.pick(1000, quick: 150)
        let warmup = settings.pick(100, quick: 30)
        let processes = max(1, min(settings.subscriberProcesses, settings.subscribers))
        let perProcess = (0..<processes).map { settings.subscribers / processes + ($0 < settings.subscribers % processes ? 1 : 0) }

        let coordinator = try CoordinatorProcess(executable: settings.executable, directory: dir,
            options: .init(durability: "off", heartbeatMs: 600_000, liveness: 3, prefix: settings.coordinatorPrefix))
        try coordinator.launch()
        defer { coordinator.stop() }
        let context = try ZMQContext(ioThreads: 1)
        let dealer = try ProtocolDealer(context: context, endpoint: coordinator.commandEndpoint)
        let reports = try ZMQSocket(context, .pull)
        defer { dealer.close(); reports.close() }
        try reports.set([.linger(milliseconds: 0), .receiveHighWaterMark(1_000_000)])
        let reportEndpoint = BenchSystem.loopbackEndpoint()
        try reports.bind(reportEndpoint)
        try BenchWait.serving(dealer, coordinator: coordinator)
        let node = SimulatedNode.id(0)
        try SimulatedCluster.setUp(dealer: dealer, nodes: 0..<1, apps: 3, claim: true)

        settings.progress("fanout: \(settings.subscribers) SUB sockets in \(processes) processes")
        var children: [ManagedProcess] = []
        defer { for c in children { c.stop(grace: 1) } }
        for (k, count) in perProcess.enumerated() {
            children.append(try ManagedProcess(name: "subscribers-\(k)", executable: settings.executable,
                arguments: ["bench", "subscribers", "--events", coordinator.eventEndpoint, "--report", reportEndpoint,
                            "--count", "\(count)", "--id", "\(k)"],
                logPath: "\(dir)/subscribers-\(k).log"))
        }
        // Publish until every process says each of its sockets has received something.
        var ready = Set<Int>()
        var starting = true
        let deadline = MonotonicClock.nanoseconds() + 60_000_000_000
        while ready.count < processes {
            guard MonotonicClock.nanoseconds() < deadline else {
                throw BenchError("subscribers not ready (\(ready.count)/\(processes)): \(children.first?.logTail(5) ?? "")")
            }
            starting.toggle()
            try BenchWait.reply(dealer, requestID: try dealer.send(starting ? SimulatedNode.start(node) : SimulatedNode.stop(node), as: node))
            while let message = try reports.receive(dontWait: true) {
                if let report = SubscriberReport(message.frames[0]), report.kind == .ready { ready.insert(report.process) }
            }
            BenchSystem.sleep(milliseconds: 20)
        }
        if starting { try BenchWait.reply(dealer, requestID: try dealer.send(SimulatedNode.stop(node), as: node)) }
        BenchSystem.sleep(milliseconds: 100)
        while try reports.receive(dontWait: true) != nil {}

        settings.progress("fanout: \(warmup) warm-up + \(trials) measured batches")
        var all = LatencyRecorder(), first = LatencyRecorder(), acks = LatencyRecorder(), spread = LatencyRecorder()
        let poller = Poller()
        poller.register(reports, for: .readable)
        for i in 0..<(warmup + trials) {
            let command = i % 2 == 0 ? SimulatedNode.start(node) : SimulatedNode.stop(node)
            let sent = MonotonicClock.nanoseconds()
            let id = try dealer.send(command, as: node)
            let sequence = try BenchWait.reply(dealer, requestID: id)
            let acked = MonotonicClock.nanoseconds()
            var seen = 0
            var earliest = UInt64.max, latest: UInt64 = 0
            let trialDeadline = sent + 10_000_000_000
            while seen < processes {
                let now = MonotonicClock.nanoseconds()
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
                all.record(from: sent, to: latest)
                first.record(from: sent, to: earliest)
                acks.record(from: sent, to: acked)
                spread.record(from: earliest, to: latest)
            }
        }
        let k = settings.subscribers
        result.rows = [
            BenchRow(benchmark: "fanout", scenario: "command → batch on all \(k) SUBs (\(processes) procs)", latency: all.summary,
                     rssMB: coordinator.rssMB),
            BenchRow(benchmark: "fanout", scenario: "command → batch on the first SUB", latency: first.summary),
            BenchRow(benchmark: "fanout", scenario: "first SUB → last SUB (spread)", latency: spread.summary),
            BenchRow(benchmark: "fanout", scenario: "command → ack (same trials)", latency: acks.summary),
        ]
        result.targets.append(TargetCheck(figure: "event reaches all \(k) nodes, p99", measured: all.summary.p99, .atMost, 10_000,
                                          unit: .microseconds, basis: "command sent → last SUB, journal off"))
        result.notes.append("fan-out figures start when the command is sent (an upper bound on publish → all received); "
            + "subscribers subscribe to \"ev.\" and \"hb\" like full replicas and decode every envelope")
        return result
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
            try sub.set([.linger(milliseconds: 0), .receiveHighWaterMark(100_000), .subscribe(Array("ev.".utf8)),
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
                    let now = MonotonicClock.nanoseconds()
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
