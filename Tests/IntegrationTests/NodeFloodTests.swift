import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Testing
import ZeroMQ

/// K1 under load, across processes: a real `camsync node` whose SUB is flooded with event batches
/// keeps sending on its command socket every heartbeat interval. Its loop takes a bounded number of
/// publications per turn (`NodeLoop.messagesPerTurn`, `turnBudgetMilliseconds`) before its timers
/// run; without the bound it reads the flood to the end and the coordinator would declare it dead.
/// The coordinator is played by the test: a ROUTER that records when the node's traffic arrives
/// (any traffic counts as a heartbeat), and a PUB that floods.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct NodeFloodTests {
    static let intervalMilliseconds = 200

    @Test("K1: a flood of batches on the SUB does not hold the node's heartbeats back (no gap > 5 × interval)")
    func heartbeatsKeepTheirIntervalUnderAFlood() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-flood-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let commands = "ipc://\(dir.path)/commands", events = "ipc://\(dir.path)/events"
        let configPath = dir.appendingPathComponent("ipad-1.yaml").path
        try TestTopology.ipad1.write(toFile: configPath, atomically: true, encoding: .utf8)

        let context = try ZMQContext()
        defer { context.shutdown() }
        let router = try ZMQSocket(context, .router)
        defer { router.close() }
        try router.set([.linger(milliseconds: 0)])
        try router.bind(commands)

        let node = try ManagedProcess(
            name: "ipad-1", executable: try camsyncBinary(),
            arguments: ["node", "--config", configPath, "--coordinator", commands, "--events", events,
                        "--control", "ipc://\(dir.path)/control", "--heartbeat-ms", "\(Self.intervalMilliseconds)"],
            logPath: dir.appendingPathComponent("node.log").path)
        defer { node.stop(grace: 2) }

        // The node is up when its first request arrives.
        let poller = Poller()
        poller.register(router, for: .readable)
        let started = Date()
        while try router.receive(dontWait: true) == nil {
            try #require(Date().timeIntervalSince(started) < 20, "the node never spoke: \(node.logTail())")
            _ = try poller.poll(timeoutMs: 100)
        }

        // The flood: pre-encoded batches, as fast as the PUB takes them, for `floodSeconds`.
        let floodSeconds = 3.0
        let published = Locked(0)
        let flooding = Locked(true)
        let batches = (1...2_000).map { sequence in
            [Array(EventTopic.node("ipad-1").utf8), Envelope.eventBatch(Camsync_V1_EventBatch(
                sequence: UInt64(sequence), term: 1, time: Instant(milliseconds: 1_800_000_000_000), originNode: nil,
                originRequestID: 0, command: .goHome(device: "ipad-1"), events: [])).serializedBytes()]
        }
        let publisher = try JoinableThreadBox {
            do {
                let pub = try ZMQSocket(context, .pub)
                defer { pub.close() }
                try pub.set([.linger(milliseconds: 0), .sendHighWaterMark(100_000)])
                try pub.bind(events)
                while flooding.withLock({ $0 }) {
                    var count = 0
                    for batch in batches { if try pub.send(batch, dontWait: true) { count += 1 } }
                    published.withLock { $0 += count }
                    usleep(1_000)   // a flood, yet the test's own threads keep a share of the CPU
                }
            } catch {
                published.withLock { $0 = -1 }
            }
        }
        defer { flooding.withLock { $0 = false }; publisher.join() }

        // The node's traffic on the command socket while the flood runs (skip the first second: the
        // SUB connects and the queue builds up): at least `floodSeconds` and at least `floodBatches`
        // published, however slowly a loaded machine lets the publisher go (up to 30 s).
        var arrivals: [Date] = []
        let floodStarted = Date()
        let floodBatches = 50_000
        while Date().timeIntervalSince(floodStarted) < floodSeconds
            || ((0..<floodBatches).contains(published.withLock { $0 }) && Date().timeIntervalSince(floodStarted) < 30) {
            _ = try poller.poll(timeoutMs: 10)
            while try router.receive(dontWait: true) != nil {
                if Date().timeIntervalSince(floodStarted) > 1.0 { arrivals.append(Date()) }
            }
        }
        let floodEnded = Date()
        flooding.withLock { $0 = false }
        publisher.join()
        #expect(node.isRunning, "\(node.logTail())")
        #expect(published.withLock { $0 } >= floodBatches, "a flood: \(published.withLock { $0 }) batches published")

        let window = floodEnded.timeIntervalSince(floodStarted) - 1.0
        // 5 intervals: what a starved node shows (nothing for the whole window) stays far above it,
        // while a machine running every suite at once on two cores (the test's own thread included)
        // may delay a heartbeat by a few hundred ms.
        let bound = 5.0 * Double(Self.intervalMilliseconds) / 1_000
        var edges = [floodStarted.addingTimeInterval(1.0)] + arrivals
        edges.append(floodEnded)
        let gaps = zip(edges.dropFirst(), edges).map { $0.timeIntervalSince($1) }
        let widest = gaps.max() ?? window
        #expect(arrivals.count >= Int(window * 1_000) / Self.intervalMilliseconds / 2,
                "\(arrivals.count) messages from the node in \(window) s of flood")
        #expect(widest <= bound, "widest gap between the node's messages: \(Int(widest * 1_000)) ms (bound \(Int(bound * 1_000)) ms)")
    }
}
