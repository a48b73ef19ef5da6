import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Testing
import ZeroMQ

/// K1 under load, across processes: a real `camsync node` whose connection is flooded with pushed
/// event batches keeps sending on it every heartbeat interval. Its loop takes a bounded number of
/// messages per turn (`NodeLoop.messagesPerTurn`, `turnBudgetMilliseconds`) before its timers run;
/// without the bound it reads the flood to the end and the coordinator would declare it dead. The
/// coordinator is played by the test: a ROUTER, on a thread of its own, that pushes the flood to the
/// node's routing id and records when the node's traffic arrives (any traffic counts as a heartbeat).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct NodeFloodTests {
    static let intervalMilliseconds = 200

    @Test("K1: a flood of pushed batches does not hold the node's heartbeats back (no gap > 5 × interval)")
    func heartbeatsKeepTheirIntervalUnderAFlood() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-flood-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let commands = "ipc://\(dir.path)/commands", events = "ipc://\(dir.path)/events"
        let configPath = dir.appendingPathComponent("ipad-1.yaml").path
        try TestTopology.ipad1.write(toFile: configPath, atomically: true, encoding: .utf8)

        let context = try ZMQContext()
        defer { context.shutdown() }

        let node = try ManagedProcess(
            name: "ipad-1", executable: try camsyncBinary(),
            arguments: ["node", "--config", configPath, "--coordinator", commands, "--events", events,
                        "--control", "ipc://\(dir.path)/control", "--heartbeat-ms", "\(Self.intervalMilliseconds)"],
            logPath: dir.appendingPathComponent("node.log").path)
        defer { node.stop(grace: 2) }

        // The coordinator's thread: its ROUTER notes when the node's messages arrive; once the node has
        // spoken (its first request), and while `flooding`, it pushes pre-encoded batches to the node as
        // fast as its connection takes them, noting arrivals between rounds.
        let floodSeconds = 3.0
        let published = Locked(0)
        let flooding = Locked(true)
        let arrivalTimes = Locked<[Date]>([])
        let spoke = DispatchSemaphore(value: 0)
        let batches = (1...2_000).map { sequence in
            [Array("ipad-1".utf8), Array(EventTopic.node("ipad-1").utf8), Envelope.eventBatch(Camsync_V1_EventBatch(
                sequence: UInt64(sequence), term: 1, time: Instant(milliseconds: 1_800_000_000_000), originNode: nil,
                originRequestID: 0, command: .goHome(device: "ipad-1"), events: [])).serializedBytes()]
        }
        let publisher = try JoinableThreadBox {
            do {
                let router = try ZMQSocket(context, .router)
                defer { router.close() }
                try router.set([.linger(milliseconds: 0), .sendHighWaterMark(100_000)])
                try router.bind(commands)
                let poller = Poller()
                poller.register(router, for: .readable)
                while arrivalTimes.withLock({ $0.isEmpty }), flooding.withLock({ $0 }) {
                    _ = try poller.poll(timeoutMs: 100)
                    while try router.receive(dontWait: true) != nil { arrivalTimes.withLock { $0.append(Date()) } }
                }
                spoke.signal()
                while flooding.withLock({ $0 }) {
                    var count = 0
                    for batch in batches {
                        if try router.send(batch, dontWait: true) { count += 1 }
                        if count % 200 == 0 {
                            while try router.receive(dontWait: true) != nil { arrivalTimes.withLock { $0.append(Date()) } }
                        }
                    }
                    published.withLock { $0 += count }
                    usleep(1_000)   // a flood, yet the test's own threads keep a share of the CPU
                }
            } catch {
                published.withLock { $0 = -1 }
            }
        }
        defer { flooding.withLock { $0 = false }; publisher.join() }

        // The node is up when its first request arrives (the coordinator's thread signals it).
        try #require(spoke.wait(timeout: .now() + 20) == .success, "the node never spoke: \(node.logTail())")
        let floodStarted = Date()

        // The node's traffic on its connection while the flood runs (skip the first second: the queue
        // builds up): at least `floodSeconds` and at least `floodBatches` pushed, however slowly a
        // loaded machine lets the flood go (up to 30 s).
        let floodBatches = 50_000
        while Date().timeIntervalSince(floodStarted) < floodSeconds
            || ((0..<floodBatches).contains(published.withLock { $0 }) && Date().timeIntervalSince(floodStarted) < 30) {
            usleep(10_000)
        }
        let floodEnded = Date()
        flooding.withLock { $0 = false }
        publisher.join()
        let arrivals = arrivalTimes.withLock { $0 }.filter { $0.timeIntervalSince(floodStarted) > 1.0 }
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
