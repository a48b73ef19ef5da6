import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ

/// SPEC K7 across processes: a real `camsync node` that left a leader because it fell silent is
/// not sent straight back to it by a standby that still names it in the same term. The two
/// coordinators are played by the test with a raw ZeroMQ ROUTER each, which pushes its heartbeats to
/// the node's routing id (docs/PROTOCOL.md "The feed"): "a" leads in term 5 and then dies silently; "b" is a standby rebuilt from etcd that answers every
/// request NOT_LEADER naming "a" at term 5 (envelope term 0), until it leads itself in term 6.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct LeaderFollowingTests {
    static let interval = 200

    /// A coordinator played by the test.
    final class Stand {
        let name: String
        let commands: String, events: String
        let router: ZMQSocket
        /// When the node's messages arrived here.
        var arrivals: [Date] = []
        var notLeaderSent = 0

        init(_ context: ZMQContext, name: String, dir: URL) throws {
            self.name = name
            commands = "ipc://\(dir.path)/\(name)-commands"
            events = "ipc://\(dir.path)/\(name)-events"
            router = try ZMQSocket(context, .router)
            try router.set([.linger(milliseconds: 0)])
            try router.bind(commands)
        }

        func address(term: UInt64) -> Camsync_V1_CoordinatorAddress {
            var address = Camsync_V1_CoordinatorAddress()
            address.name = name
            address.commandEndpoint = commands
            address.eventEndpoint = events
            address.term = term
            return address
        }

        /// A leader's heartbeat, naming itself, pushed to the node on its connection here.
        func heartbeat(term: UInt64) throws {
            var envelope = Envelope.coordinatorHeartbeat(term: term, lastSequence: 0, time: Instant(milliseconds: 1_800_000_000_000))
            if case .coordinatorHeartbeat(var heartbeat)? = envelope.body {
                heartbeat.coordinator = address(term: term)
                envelope.body = .coordinatorHeartbeat(heartbeat)
            }
            _ = try router.send([Array("ipad-1".utf8), Array("hb".utf8), envelope.serializedBytes()], dontWait: true)
        }

        /// Records what the node sent; answers its requests NOT_LEADER naming `leader` when given.
        func serve(notLeaderNaming leader: Camsync_V1_CoordinatorAddress?) throws {
            while let message = try router.receive(dontWait: true) {
                arrivals.append(Date())
                guard let leader, message.frames.count == 2, let request = try? Envelope.decode(message.frames[1]),
                      request.requestID != 0 else { continue }
                var error = Camsync_V1_Error(code: .notLeader, message: "not the leader (a standby)")
                error.leader = leader
                // A standby rebuilt from etcd: envelope term 0; only the leader's term counts.
                _ = try router.send([message.frames[0], Envelope.error(error, requestID: request.requestID, term: 0).serializedBytes()],
                                    dontWait: true)
                notLeaderSent += 1
            }
        }

        func close() { router.close() }
    }

    @Test("K7: after leaving a silent leader, a standby's NOT_LEADER naming it in the same term does not send the node back")
    func notSentBackToTheDeadLeader() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-k7-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let configPath = dir.appendingPathComponent("ipad-1.yaml").path
        try TestTopology.ipad1.write(toFile: configPath, atomically: true, encoding: .utf8)

        let context = try ZMQContext()
        defer { context.shutdown() }
        let a = try Stand(context, name: "a", dir: dir), b = try Stand(context, name: "b", dir: dir)
        defer { a.close(); b.close() }
        let poller = Poller()
        poller.register(a.router, for: .readable)
        poller.register(b.router, for: .readable)

        let node = try ManagedProcess(
            name: "ipad-1", executable: try camsyncBinary(),
            arguments: ["node", "--config", configPath, "--coordinator", "\(a.commands),\(b.commands)",
                        "--events", "\(a.events),\(b.events)", "--control", "ipc://\(dir.path)/control",
                        "--heartbeat-ms", "\(Self.interval)", "--liveness", "3"],
            logPath: dir.appendingPathComponent("node.log").path)
        defer { node.stop(grace: 2) }

        /// Runs the stand-ins for `seconds`: `leader` publishes a heartbeat every interval; "b"
        /// answers NOT_LEADER naming `bNames` (nil: it is the leader and answers nothing).
        func run(_ seconds: Double, leader: (Stand, UInt64)?, bNames: Camsync_V1_CoordinatorAddress?,
                 until done: () -> Bool = { false }) throws {
            let end = Date().addingTimeInterval(seconds)
            var nextHeartbeat = Date()
            while Date() < end, !done() {
                if let (stand, term) = leader, Date() >= nextHeartbeat {
                    try stand.heartbeat(term: term)
                    nextHeartbeat = Date().addingTimeInterval(Double(Self.interval) / 1_000)
                }
                _ = try poller.poll(timeoutMs: 10)
                try a.serve(notLeaderNaming: nil)
                try b.serve(notLeaderNaming: bNames)
            }
        }

        // 1. "a" leads in term 5: the node talks to it (the first endpoint; its heartbeats name it).
        try run(20, leader: (a, 5), bNames: nil) { a.arrivals.count >= 3 }
        try #require(a.arrivals.count >= 3, "the node never spoke to a: \(node.logTail())")
        try run(1, leader: (a, 5), bNames: nil)
        #expect(b.arrivals.isEmpty, "nothing goes to the standby while the leader is heard: \(node.logTail(10))")

        // 2. "a" dies silently. After interval × liveness the node moves to "b", which names "a" at term 5.
        let silentFrom = Date()
        try run(10, leader: nil, bNames: a.address(term: 5)) { b.notLeaderSent >= 1 }
        _ = try #require(b.arrivals.first(where: { $0 > silentFrom }), "the node never tried b: \(node.logTail())")
        #expect(b.notLeaderSent >= 1)
        // The NOT_LEADER must not take it back to "a" (the silence back-off's own next reconnect may
        // try "a" again later: that is not what is checked). The node says what it did with each
        // NOT_LEADER naming a@5 in its log: the positive sign is its refusal; no "following" may name
        // a by a not-leader reply. (Arrival times at the stand-ins are not compared: under load the
        // test's loop notes them late.)
        let log = { (try? String(contentsOfFile: node.logPath, encoding: .utf8)) ?? "" }
        try run(10, leader: nil, bNames: a.address(term: 5)) {
            log().contains("not following the coordinator left for silence in that term")
        }
        #expect(log().contains("not following the coordinator left for silence in that term"),
                "b answered NOT_LEADER naming a@5 \(b.notLeaderSent) times: \(node.logTail(10))")
        let followedA = log().split(separator: "\n").filter {
            $0.contains("following the leader") && !$0.contains("not following") && $0.contains(a.commands)
                && $0.contains("not-leader reply")
        }
        #expect(followedA.isEmpty, "sent back to the dead leader by b's NOT_LEADER: \(followedA)")

        // 3. "b" leads in term 6: the node follows it, and nothing more goes to "a".
        try run(3, leader: (b, 6), bNames: nil)
        let settled = Date()
        try run(1.5, leader: (b, 6), bNames: nil)
        #expect(a.arrivals.allSatisfy { $0 < settled }, "nothing for the dead leader once b leads: \(node.logTail(12))")
        #expect(b.arrivals.contains { $0 > settled }, "the node talks to the new leader: \(node.logTail(10))")
        #expect(node.isRunning)
    }
}
