import CamsyncProcessLab
public import CamsyncStats
public import CamsyncTopology
import CamsyncRuntime
import CamsyncClient
public import CamsyncPolicy
import CamsyncWire
import Foundation
public import ZeroMQ

/// What a flood sends and how.
public struct FloodOptions: Sendable {
    /// Adversarial frames (not counting the oversized ones).
    public var frames = 1_000_000
    /// DEALER sockets (one thread each) sending them, pipelined.
    public var senders = 2
    /// Frames larger than MAXMSGSIZE, each from a fresh DEALER (the coordinator disconnects it).
    public var oversized = 100
    /// Most unanswered frames per sender (well under the coordinator's SNDHWM of 100,000, so no reply is dropped).
    public var window = 10_000
    /// Pause between two requests of the good client.
    public var goodIntervalMilliseconds = 10
    /// How long the good client runs alone before and after the flood.
    public var quietSeconds = 3.0
    /// Give up waiting for the last replies after this long without progress.
    public var drainTimeoutSeconds = 20.0
    /// Relative frequency of each kind.
    public var weights: [FloodKind: Int] = [
        .garbage: 10, .truncated: 10, .wrongVersion: 8, .mutatedUndecodable: 12, .monster: 1, .multiFrame: 7,
        .invalidCommand: 12, .impossibleReference: 12, .unknownSender: 10, .impersonation: 6, .emptySender: 4,
        .unexpectedBody: 6,
    ]
    public var seed: UInt64 = 0xF100D
    /// Bundle id size of the `huge-reference` kind, and its weight (0 = not sent, the default).
    public var hugeReferenceBytes = 0
    public var hugeReferenceWeight = 0

    public init() {}
}

/// The good client's view of one phase: how many requests succeeded and failed, and their latency.
public struct GoodClientPhase: Sendable, Codable, CustomStringConvertible {
    public var succeeded = 0
    public var failed = 0
    public var latency: LatencySummary

    init(milliseconds samples: [Double], failed: Int) {
        succeeded = samples.count
        self.failed = failed
        latency = LatencySummary(microseconds: samples.map { $0 * 1000 })
    }

    public var description: String {
        String(format: "%5d ok %3d failed  p50 %6.2f ms  p90 %6.2f ms  p99 %7.2f ms  max %7.2f ms", succeeded, failed,
               latency.p50 / 1000, latency.p90 / 1000, latency.p99 / 1000, latency.max / 1000)
    }
}

/// Everything a flood measured.
public struct FloodReport: Sendable, Codable, CustomStringConvertible {
    public var frames = 0
    public var senders = 0
    public var floodSeconds = 0.0
    public var sentByKind: [String: Int] = [:]
    public var repliesByCode: [String: Int] = [:]
    /// Per kind (for replies that carry a request id) or "no-request-id" (undecodable / multi-frame).
    public var repliesByKind: [String: [String: Int]] = [:]
    /// Non-error replies, or codes a kind must not get, or replies to unknown request ids.
    public var unexpectedReplies: [String] = []
    /// Bad frames that got no reply before the drain timeout.
    public var unanswered = 0
    public var oversizedSent = 0
    public var oversizedDisconnects = 0
    public var oversizedReplies = 0
    public var good: [String: GoodClientPhase] = [:]
    public var goodErrors: [String] = []
    public var rssBeforeKB = 0, rssAfterKB = 0, rssPeakKB = 0, hwmKB = 0
    /// RSS (kB) when each tenth of the frames had been sent.
    public var rssCheckpoints: [[Int]] = []
    public var coordinatorAlive = false
    public var nodesAliveAfter: [String] = []
    public var sequenceBefore: UInt64 = 0, sequenceAfter: UInt64 = 0

    public var badFramesAnswered: Int { repliesByCode.values.reduce(0, +) }
    public var totalSent: Int { sentByKind.values.reduce(0, +) }

    /// RSS growth over the second half of the flood (kB): the leak indicator (the retry window is full by then).
    public var secondHalfGrowthKB: Int {
        guard let half = rssCheckpoints.first(where: { $0[0] * 2 >= frames }), let last = rssCheckpoints.last else { return 0 }
        return last[1] - half[1]
    }

    public var description: String {
        var lines: [String] = []
        lines.append(String(format: "flood: %d frames from %d DEALERs in %.1f s (%.0f frames/s), %d oversized",
                            totalSent, senders, floodSeconds, Double(totalSent) / Swift.max(floodSeconds, 0.001), oversizedSent))
        lines.append("frames sent by kind:")
        for (kind, count) in sentByKind.sorted(by: { $0.key < $1.key }) { lines.append("  \(kind.padding(toLength: 26, withPad: " ", startingAt: 0)) \(count)") }
        lines.append("error replies by code (\(badFramesAnswered) of \(totalSent) answered, \(unanswered) unanswered):")
        for (code, count) in repliesByCode.sorted(by: { $0.key < $1.key }) { lines.append("  \(code.padding(toLength: 26, withPad: " ", startingAt: 0)) \(count)") }
        lines.append("oversized (> MAXMSGSIZE): \(oversizedSent) sent, \(oversizedDisconnects) disconnects seen, \(oversizedReplies) replies")
        lines.append("unexpected replies: \(unexpectedReplies.count)" + (unexpectedReplies.isEmpty ? "" : " e.g. \(unexpectedReplies.prefix(3))"))
        lines.append("good client (admin: set_auto_pip + snapshot_request, alternating):")
        for phase in ["before", "during", "after"] { lines.append("  \(phase.padding(toLength: 7, withPad: " ", startingAt: 0)) \(good[phase].map(\.description) ?? "-")") }
        if !goodErrors.isEmpty { lines.append("  errors: \(goodErrors.prefix(3))") }
        lines.append(String(format: "coordinator RSS: before %.1f MiB, after %.1f MiB, peak sampled %.1f MiB, VmHWM %.1f MiB; second-half growth %.1f MiB",
                            Double(rssBeforeKB) / 1024, Double(rssAfterKB) / 1024, Double(rssPeakKB) / 1024, Double(hwmKB) / 1024,
                            Double(secondHalfGrowthKB) / 1024))
        lines.append("  by tenths of the flood (frames → MiB): " + rssCheckpoints.map { String(format: "%d→%.1f", $0[0], Double($0[1]) / 1024) }.joined(separator: " "))
        lines.append("coordinator alive: \(coordinatorAlive); sequence \(sequenceBefore) → \(sequenceAfter); nodes alive after: \(nodesAliveAfter.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}

/// Floods a running coordinator's ROUTER with adversarial frames while a good client measures it.
public enum Flood {
    /// The small topology the flood runs against: two iPads (ipad-1 with the apps the frames name).
    public static func topology(runDirectory: String) throws -> Topology {
        let ipad1 = """
            id: ipad-1
            kind: device
            device:
              os: 17
              stageManagerEnabled: true
              cameras: [ { name: front, position: front }, { name: back, position: back } ]
              apps:
                - { bundleID: com.apple.camera, systemCameraApp: true, audioSessionCategory: playAndRecord }
                - { bundleID: com.example.call, backgroundModePiP: true, audioSessionCategory: playAndRecord }
                - { bundleID: com.example.video, backgroundModePiP: true, audioSessionCategory: playback }
                - { bundleID: com.example.notes }
            """
        let ipad2 = """
            id: ipad-2
            kind: device
            device:
              os: 16
              cameras: [ { name: front, position: front } ]
              apps:
                - { bundleID: com.apple.camera, systemCameraApp: true }
                - { bundleID: com.example.notes }
            """
        return try Topology(name: "flood", runDirectory: runDirectory, settings: .init(heartbeatMs: 500, liveness: 3),
                            nodes: [ipad1, ipad2].map(Topology.Node.init(yaml:)))
    }

    /// Starts the topology's processes from `executable` (the camsync binary) in a fresh run
    /// directory, floods the coordinator, stops everything and returns the report.
    public static func runLocal(executable: String, options: FloodOptions, keepRunDirectory: Bool = false,
                                progress: @escaping @Sendable (String) -> Void = { _ in }) throws -> FloodReport {
        let runDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-flood-\(UUID().uuidString.prefix(8))").path
        let cluster = try LocalCluster(topology: try topology(runDirectory: runDirectory), runDirectory: runDirectory, executable: executable)
        defer {
            cluster.stop(grace: 3)
            if !keepRunDirectory { try? FileManager.default.removeItem(atPath: runDirectory) }
        }
        progress("starting a coordinator and 2 nodes in \(runDirectory)")
        try cluster.start(timeout: 60)
        guard let pid = cluster.coordinator?.pid else { throw ClusterWaitError(message: "no coordinator process") }
        let context = try ZMQContext(ioThreads: 1)
        defer { context.shutdown() }
        let report = try run(endpoint: cluster.localCommandEndpoint, coordinatorPID: pid, context: context, options: options,
                             progress: progress)
        if let log = try? String(contentsOfFile: cluster.logPath("coordinator"), encoding: .utf8),
           log.contains("critical") || log.contains("Fatal error") {
            progress("coordinator log tail:\n" + log.split(separator: "\n").suffix(10).joined(separator: "\n"))
        }
        return report
    }

    /// Floods `endpoint` (a coordinator's ROUTER; `coordinatorPID` for its RSS).
    public static func run(endpoint: String, coordinatorPID: Int32, context: ZMQContext, options: FloodOptions,
                           realNode: NodeID = "ipad-1", otherNode: NodeID = "ipad-2",
                           progress: @escaping @Sendable (String) -> Void = { _ in }) throws -> FloodReport {
        let frames = FloodFrames(realNode: realNode, otherNode: otherNode, seed: options.seed,
                                 hugeReferenceBytes: options.hugeReferenceBytes)
        var report = FloodReport()
        report.frames = options.frames
        report.senders = options.senders
        let shared = Shared()
        let sequenceBefore = try snapshot(context: context, endpoint: endpoint)?.sequence ?? 0
        report.sequenceBefore = sequenceBefore

        // RSS sampler and good client, for the whole run.
        let sampler = try JoinableThread {
            while !shared.stop.withLock({ $0 }) {
                if let rss = readStatus(pid: coordinatorPID, field: "VmRSS") {
                    shared.rss.withLock { state in
                        state.peak = Swift.max(state.peak, rss)
                        let sent = shared.sent.withLock { $0 }
                        let tenth = Swift.max(1, options.frames / 10)
                        let next = state.checkpoints.count  // checkpoints[0] is the flood's start
                        if shared.phase.withLock({ $0 }) == "during", next >= 1, next < 10, sent >= next * tenth {
                            state.checkpoints.append([sent, rss])
                        }
                    }
                }
                usleep(50_000)
            }
        }
        let goodClient = try JoinableThread {
            goodClientLoop(context: context, endpoint: endpoint, realNode: realNode, interval: options.goodIntervalMilliseconds,
                           shared: shared)
        }

        progress(String(format: "good client alone for %.1f s", options.quietSeconds))
        usleep(UInt32(options.quietSeconds * 1_000_000))
        report.rssBeforeKB = readStatus(pid: coordinatorPID, field: "VmRSS") ?? 0
        shared.rss.withLock { $0.checkpoints = [[0, report.rssBeforeKB]] }
        shared.phase.withLock { $0 = "during" }
        progress("flooding: \(options.frames) frames from \(options.senders) DEALERs + \(options.oversized) oversized")

        let started = ContinuousClock.now
        let results = Locked<[SenderResult]>([])
        var threads: [JoinableThread] = []
        let perSender = options.frames / options.senders
        for index in 0..<options.senders {
            let quota = index == options.senders - 1 ? options.frames - perSender * (options.senders - 1) : perSender
            threads.append(try JoinableThread {
                let result = senderLoop(index: index, quota: quota, context: context, endpoint: endpoint, frames: frames,
                                        options: options, shared: shared, progress: progress)
                results.withLock { $0.append(result) }
            })
        }
        let oversized = Locked<(sent: Int, disconnects: Int, replies: Int)>((0, 0, 0))
        let oversizedThread = try JoinableThread {
            oversized.withLock { $0 = oversizedLoop(count: options.oversized, context: context, endpoint: endpoint, shared: shared) }
        }
        for thread in threads { thread.join() }
        shared.sendersDone.withLock { $0 = true }
        oversizedThread.join()
        report.floodSeconds = seconds(started.duration(to: .now))

        shared.phase.withLock { $0 = "after" }
        progress(String(format: "flood done in %.1f s; good client alone for %.1f s", report.floodSeconds, options.quietSeconds))
        usleep(UInt32(options.quietSeconds * 1_000_000))
        report.rssAfterKB = readStatus(pid: coordinatorPID, field: "VmRSS") ?? 0
        shared.stop.withLock { $0 = true }
        goodClient.join()
        sampler.join()
        report.hwmKB = readStatus(pid: coordinatorPID, field: "VmHWM") ?? 0

        // Gather.
        for result in results.withLock({ $0 }) {
            for (kind, count) in result.sentByKind { report.sentByKind["\(kind)", default: 0] += count }
            for (code, count) in result.repliesByCode { report.repliesByCode[code, default: 0] += count }
            for (kind, codes) in result.repliesByKind {
                for (code, count) in codes { report.repliesByKind[kind, default: [:]][code, default: 0] += count }
            }
            report.unexpectedReplies += result.unexpected
            report.unanswered += result.unanswered
        }
        (report.oversizedSent, report.oversizedDisconnects, report.oversizedReplies) = oversized.withLock { $0 }
        let rss = shared.rss.withLock { $0 }
        report.rssPeakKB = rss.peak
        report.rssCheckpoints = rss.checkpoints + [[options.frames, report.rssAfterKB]]
        let good = shared.good.withLock { $0 }
        for phase in ["before", "during", "after"] {
            report.good[phase] = GoodClientPhase(milliseconds: good.samples[phase] ?? [], failed: good.failures[phase] ?? 0)
        }
        report.goodErrors = good.errors
        report.coordinatorAlive = kill(coordinatorPID, 0) == 0
        if let after = try snapshot(context: context, endpoint: endpoint) {
            report.sequenceAfter = after.sequence
            report.nodesAliveAfter = after.state.nodes.values.filter(\.alive).map(\.id.rawValue).sorted()
        } else {
            report.coordinatorAlive = false
        }
        return report
    }

    // MARK: Pieces

    final class Shared: Sendable {
        let stop = Locked(false)
        let sendersDone = Locked(false)
        let phase = Locked("before")
        let sent = Locked(0)
        let rss = Locked<(peak: Int, checkpoints: [[Int]])>((0, []))
        let good = Locked<(samples: [String: [Double]], failures: [String: Int], errors: [String])>(([:], [:], []))
    }

    struct SenderResult: Sendable {
        var sentByKind: [FloodKind: Int] = [:]
        var repliesByCode: [String: Int] = [:]
        var repliesByKind: [String: [String: Int]] = [:]
        var unexpected: [String] = []
        var unanswered = 0
    }

    static func senderLoop(index: Int, quota: Int, context: ZMQContext, endpoint: String, frames: FloodFrames,
                           options: FloodOptions, shared: Shared, progress: @Sendable (String) -> Void) -> SenderResult {
        var result = SenderResult()
        do {
            let socket = try ZMQSocket(context, .dealer)
            defer { socket.close() }
            try socket.set([.linger(milliseconds: 0), .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000)])
            try socket.connect(endpoint)
            let poller = Poller()
            poller.register(socket, for: .readable)
            var rng = SplitMix64(seed: options.seed &+ UInt64(index) &* 7919)
            var schedule: [FloodKind] = []
            for kind in FloodKind.allCases { schedule += Array(repeating: kind, count: options.weights[kind] ?? 0) }
            if options.hugeReferenceBytes > 0 { schedule += Array(repeating: .hugeReference, count: options.hugeReferenceWeight) }
            let pools = FloodKind.allCases.map { frames.templates[$0] ?? [] }
            schedule = schedule.filter { !pools[$0.rawValue - 1].isEmpty }
            var sent = 0, received = 0, reported = 0
            var codeCounts = [Int](repeating: 0, count: 16)
            var kindCodeCounts = [[Int]](repeating: [Int](repeating: 0, count: 16), count: FloodKind.allCases.count + 1)
            var expectedWithoutID = 0, expectedByKind = [Int](repeating: 0, count: FloodKind.allCases.count + 1)
            var lastProgress = ContinuousClock.now
            let serialBase = UInt64(index) << 40
            while true {
                var progressed = false
                while sent < quota, sent - received < options.window {
                    let kind = rng.pick(schedule)
                    let template = rng.pick(pools[kind.rawValue - 1])
                    guard try socket.send(FloodFrames.frames(template, serial: serialBase + UInt64(sent)), dontWait: true) else { break }
                    sent += 1
                    result.sentByKind[kind, default: 0] += 1
                    if kind.answeredWithoutRequestID { expectedWithoutID += 1 } else { expectedByKind[kind.rawValue] += 1 }
                    progressed = true
                    if sent - reported >= 1_000 {
                        let delta = sent - reported
                        reported = sent
                        shared.sent.withLock { $0 += delta }
                    }
                }
                while let message = try socket.receive(dontWait: true) {
                    received += 1
                    progressed = true
                    guard message.frames.count == 1, let (requestID, code) = scanReply(message.frames[0]) else {
                        if result.unexpected.count < 20 { result.unexpected.append("a reply that is not one error envelope") }
                        continue
                    }
                    let codeIndex = Swift.min(Int(code), 15)
                    codeCounts[codeIndex] += 1
                    if let kind = FloodFrames.kind(ofRequestID: requestID), requestID != 0 {
                        kindCodeCounts[kind.rawValue][codeIndex] += 1
                        if code == 0 || !kind.allowedCodes.contains(Camsync_V1_ErrorCode(rawValue: Int(code)) ?? .unspecified) {
                            if result.unexpected.count < 20 { result.unexpected.append("\(kind) answered with code \(code)") }
                        }
                    } else {
                        // A frame that does not decode: its reply echoes whatever request id could be read
                        // from the bytes before the bad part (0 when none), not one of the flood's own.
                        kindCodeCounts[0][codeIndex] += 1
                        if code == 0 || !FloodKind.codesWithoutRequestID.contains(Camsync_V1_ErrorCode(rawValue: Int(code)) ?? .unspecified),
                           result.unexpected.count < 20 {
                            result.unexpected.append("reply with request id \(requestID) (an undecodable frame's) answered with code \(code)")
                        }
                    }
                }
                if sent == quota, received >= sent { break }
                if progressed {
                    lastProgress = .now
                } else {
                    if seconds(lastProgress.duration(to: .now)) > options.drainTimeoutSeconds {
                        progress("sender \(index): no progress for \(options.drainTimeoutSeconds) s (sent \(sent), answered \(received))")
                        break
                    }
                    _ = try poller.poll(timeoutMs: 2)
                }
            }
            shared.sent.withLock { $0 += sent - reported }
            result.unanswered = sent - received
            func name(_ code: Int) -> String { code == 0 ? "none" : "\(Camsync_V1_ErrorCode(rawValue: code) ?? .unspecified)" }
            for code in 0..<16 where codeCounts[code] > 0 { result.repliesByCode[name(code)] = codeCounts[code] }
            for kind in 0...FloodKind.allCases.count {
                let label = kind == 0 ? "no-request-id" : "\(FloodKind(rawValue: kind)!)"
                for code in 0..<16 where kindCodeCounts[kind][code] > 0 { result.repliesByKind[label, default: [:]][name(code)] = kindCodeCounts[kind][code] }
                let answered = kindCodeCounts[kind].reduce(0, +)
                let expected = kind == 0 ? expectedWithoutID : expectedByKind[kind]
                if answered > expected, result.unexpected.count < 20 { result.unexpected.append("\(label): \(answered) replies for \(expected) frames") }
            }
        } catch {
            result.unexpected.append("sender \(index) failed: \(error)")
        }
        return result
    }

    /// The request id and the error code of a reply envelope, scanning only what is needed
    /// (a million replies are not worth a million protobuf decodes). Code 0 = not an error.
    static func scanReply(_ bytes: [UInt8]) -> (UInt64, UInt64)? {
        var index = 0, requestID: UInt64 = 0, code: UInt64 = 0
        while index < bytes.count {
            guard let tag = ProtobufWire.readVarint(bytes, &index) else { return nil }
            switch tag & 7 {
            case 0:
                guard let value = ProtobufWire.readVarint(bytes, &index) else { return nil }
                if tag >> 3 == 3 { requestID = value }
            case 2:
                guard let length = ProtobufWire.readVarint(bytes, &index), length <= UInt64(bytes.count - index) else { return nil }
                if tag >> 3 == 21 {  // Error
                    var inner = index
                    let end = index + Int(length)
                    while inner < end {
                        guard let innerTag = ProtobufWire.readVarint(bytes, &inner) else { return nil }
                        if innerTag == 0x08 { code = ProtobufWire.readVarint(bytes, &inner) ?? 0; break }
                        guard innerTag & 7 == 2, let skip = ProtobufWire.readVarint(bytes, &inner) else { break }
                        inner += Int(skip)
                    }
                }
                index += Int(length)
            case 1: index += 8
            case 5: index += 4
            default: return nil
            }
        }
        return (requestID, code)
    }

    /// Frames over MAXMSGSIZE, each from a fresh DEALER: libzmq on the coordinator's side drops the
    /// connection. Counts the disconnects the socket monitor reports, and any reply (there must be none).
    static func oversizedLoop(count: Int, context: ZMQContext, endpoint: String, shared: Shared) -> (Int, Int, Int) {
        var sent = 0, disconnects = 0, replies = 0
        var rng = SplitMix64(seed: 0x0B16)
        for _ in 0..<count {
            do {
                let socket = try ZMQSocket(context, .dealer)
                defer { socket.close() }
                try socket.set([.linger(milliseconds: 0), .reconnectInterval(milliseconds: 10_000)])
                let monitor = try socket.monitor()
                defer { monitor.stop() }
                try socket.connect(endpoint)
                guard try monitor.waitForEvent(timeoutMs: 3_000, where: { if case .handshakeSucceeded = $0 { true } else { false } }) != nil else { continue }
                let size = (1 << 20) + 1 + Int.random(in: 0..<(1 << 20), using: &rng)
                guard try socket.send([[UInt8](repeating: 0x0A, count: size)], dontWait: true) else { continue }
                sent += 1
                if try monitor.waitForEvent(timeoutMs: 5_000, where: { if case .disconnected = $0 { true } else { false } }) != nil {
                    disconnects += 1
                }
                while (try? socket.receive(dontWait: true)) != nil { replies += 1 }
            } catch {
                continue
            }
            // Spread them over the flood.
            if !shared.sendersDone.withLock({ $0 }) { usleep(20_000) }
        }
        return (sent, disconnects, replies)
    }

    static func goodClientLoop(context: ZMQContext, endpoint: String, realNode: NodeID, interval: Int, shared: Shared) {
        guard let client = try? CoordinatorClient(context: context, endpoint: endpoint, sender: Envelope.adminSender) else { return }
        defer { client.close() }
        var toggle = false
        var turn = 0
        while !shared.stop.withLock({ $0 }) {
            let phase = shared.phase.withLock { $0 }
            let started = ContinuousClock.now
            do {
                if turn % 2 == 0 {
                    toggle.toggle()
                    try client.send(.setAutoPiP(device: realNode, enabled: toggle), timeoutMilliseconds: 10_000)
                } else {
                    _ = try client.snapshot(timeoutMilliseconds: 10_000)
                }
                let ms = seconds(started.duration(to: .now)) * 1000
                shared.good.withLock { $0.samples[phase, default: []].append(ms) }
            } catch {
                shared.good.withLock {
                    $0.failures[phase, default: 0] += 1
                    if $0.errors.count < 10 { $0.errors.append("\(phase): \(error)") }
                }
            }
            turn += 1
            usleep(UInt32(interval * 1000))
        }
    }

    static func snapshot(context: ZMQContext, endpoint: String) throws -> CoordinatorClient.Snapshot? {
        let client = try CoordinatorClient(context: context, endpoint: endpoint, sender: Envelope.adminSender)
        defer { client.close() }
        return try? client.snapshot(timeoutMilliseconds: 10_000)
    }

    /// A `kB` field of /proc/PID/status (VmRSS, VmHWM).
    public static func readStatus(pid: Int32, field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
