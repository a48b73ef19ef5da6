import CamsyncClient
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Testing
import ZeroMQ

/// Least privilege for reads under CURVE (docs/PROTOCOL.md "The feed"), across real processes:
/// ipad-1 with the C agent's display-1 attached, and ipad-2. A node's key is pushed its own group's
/// batches and heartbeats on its command connection, reads nothing on the event socket, and its own
/// device group's snapshot and replay only; an admin reads `all`.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct GroupFeedTests {
    static let nodes = [TestTopology.ipad1, TestTopology.ipad2, TestTopology.display1 + "\nagent: c"]
    static let refusedSeries = "camsync_group_reads_refused_total"

    static func curve(_ pair: CurveKeyPair, _ cluster: LocalCluster) -> ClientCurve {
        ClientCurve(publicKey: pair.publicKey, secretKey: pair.secretKey, serverPublicKey: cluster.keys!.coordinator.publicKey)
    }

    /// Every message a subscriber received until `stop` held for one of them (or the time ran out).
    static func collect(_ subscriber: EventSubscriber, timeout: Double, until stop: ([(topic: String, envelope: Envelope)]) -> Bool)
        throws -> [(topic: String, envelope: Envelope)] {
        var heard: [(topic: String, envelope: Envelope)] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !stop(heard) {
            if let message = try subscriber.next(timeoutMilliseconds: 200) { heard.append(message) }
        }
        return heard
    }

    /// What was pushed to a node's DEALER (two frames: topic, envelope) until `stop` held (or the time
    /// ran out); replies (one frame) are left out.
    static func collect(_ dealer: ZMQSocket, timeout: Double, until stop: ([(topic: String, envelope: Envelope)]) -> Bool)
        throws -> [(topic: String, envelope: Envelope)] {
        var heard: [(topic: String, envelope: Envelope)] = []
        let poller = Poller()
        poller.register(dealer, for: .readable)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !stop(heard) {
            _ = try poller.poll(timeoutMs: 200)
            while let message = try dealer.receive(dontWait: true) {
                guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) else { continue }
                heard.append((String(decoding: message.frames[0], as: UTF8.self), envelope))
            }
        }
        return heard
    }

    static func batch(_ envelope: Envelope) -> Camsync_V1_EventBatch? {
        if case .eventBatch(let batch)? = envelope.body { return batch }
        return nil
    }

    static func errorOf(_ reply: Envelope) -> Camsync_V1_Error? {
        if case .error(let error)? = reply.body { return error }
        return nil
    }

    @Test("a node's key is pushed its own group only (the C agent, and its own connection); its SUB is refused everything; its reads of ipad-2's group are FORBIDDEN; an admin on all sees both groups")
    func readsStayInTheGroup() async throws {
        let http = "127.0.0.1:\(TestTopology.freeTCPPort())"
        // A long liveness: ipad-1 stays alive in the coordinator's eyes while the test speaks with its
        // key after its process is gone (the reads below).
        try await withCluster(Self.nodes, heartbeatMs: 250, liveness: 40, curve: true, prepare: { cluster in
            cluster.coordinatorArguments = ["--http", http]
        }) { cluster in
            try DisplayAgentTests.waitAttached(cluster)
            try cluster.waitForAgreement()
            let keys = try #require(cluster.keys)
            let ipad1Key = try #require(keys.nodes["ipad-1"])
            let refusedAtStart = try HTTPScrape.metrics(http)[Self.refusedSeries] ?? 0

            // ipad-1's process goes: its key's own connection below takes its route (it stays alive in
            // the coordinator's eyes: liveness).
            cluster.signalNode("ipad-1", SIGKILL)

            // (a) A SUB with ipad-1's key asks the event socket for everything, its own feed included:
            // every subscription is refused (a node's feed is pushed on its command connection).
            let ownFeed = EventTopic.node("ipad-1")
            let spy = try EventSubscriber(context: ZMQContext(), endpoint: cluster.eventEndpoint,
                                          topics: ["", "ev.", EventTopic.everyBatch, ownFeed], curve: Self.curve(ipad1Key, cluster))
            defer { spy.close() }
            let admin = try cluster.eventSubscriber(topics: [EventTopic.everyBatch, EventTopic.heartbeat])
            defer { admin.close() }
            try #require(!(try Self.collect(admin, timeout: 10) { !$0.isEmpty }).isEmpty, "the admin SUB heard nothing")
            var refused = refusedAtStart
            try cluster.waitUntil(timeout: 10, what: "the spy's four subscriptions to be refused and counted") {
                refused = try HTTPScrape.metrics(http)[Self.refusedSeries] ?? 0
                return refused - refusedAtStart >= 4
            }
            #expect(refused - refusedAtStart == 4, "\"\", \"ev.\", \"all\" and its own feed refused")

            // ipad-1's connection as the protocol has it: a DEALER with its key and its routing id. Its
            // feed is pushed there (two frames); the route is free once the killed process's is closed.
            let context = try ZMQContext()
            let feed = try ZMQSocket(context, .dealer)
            defer { feed.close() }
            try feed.set([.linger(milliseconds: 0), .routingID(Array("ipad-1".utf8)), .reconnectInterval(milliseconds: 100),
                          .curveServerKey(keys.coordinator.publicKey), .curvePublicKey(ipad1Key.publicKey),
                          .curveSecretKey(ipad1Key.secretKey)])
            try feed.connect(cluster.commandEndpoint)
            var pushed = try Self.collect(feed, timeout: 10) { $0.contains { $0.topic == EventTopic.heartbeat } }
            try #require(pushed.contains { $0.topic == EventTopic.heartbeat }, "nothing pushed to ipad-1's connection")

            // A batch of ipad-2's group, then a later one of ipad-1's.
            let command = try cluster.coordinatorClient()
            defer { command.close() }
            let other = try command.send(.openFullScreen(Apps.notes2, trigger: .user))
            let own = try command.send(.openFullScreen(Apps.notes1, trigger: .user))
            #expect(own > other)
            pushed += try Self.collect(feed, timeout: 10) { $0.contains { Self.batch($0.envelope)?.sequence == own } }
            #expect(pushed.contains { Self.batch($0.envelope)?.sequence == own }, "ipad-1's own batch \(own) was pushed to it")
            #expect(pushed.allSatisfy { $0.topic == ownFeed || $0.topic == EventTopic.heartbeat },
                    "only ipad-1's feed and heartbeats: \(Set(pushed.map(\.topic)))")
            #expect(!pushed.contains { Self.batch($0.envelope)?.sequence == other }, "ipad-2's batch \(other) never came")
            #expect(pushed.compactMap { Self.batch($0.envelope) }.allSatisfy { $0.groups.contains { $0.group == "ipad-1" } },
                    "every batch pushed is one of ipad-1's group")

            // (c) The admin on `all` sees both groups' batches, then a heartbeat after them; the spy,
            // on the same socket, got none of it.
            var watched = try Self.collect(admin, timeout: 10) { heard in
                [other, own].allSatisfy { sequence in heard.contains { Self.batch($0.envelope)?.sequence == sequence } }
            }
            let watchedSequences = Set(watched.compactMap { Self.batch($0.envelope)?.sequence })
            #expect(watchedSequences.isSuperset(of: [other, own]), "the admin saw \(watchedSequences.sorted())")
            #expect(watched.filter { Self.batch($0.envelope) != nil }.allSatisfy { $0.topic == EventTopic.everyBatch })
            let seen = watched.count
            watched += try Self.collect(admin, timeout: 10) { $0.contains { $0.topic == EventTopic.heartbeat } }
            #expect(watched.count > seen, "a heartbeat after the batches")
            var spied: [(topic: String, envelope: Envelope)] = []
            while let message = try spy.next(timeoutMilliseconds: 0) { spied.append(message) }
            #expect(spied.isEmpty, "the node's key heard on the event socket: \(Set(spied.map(\.topic)))")
            feed.close()

            // The C agent follows ipad-1's group: it holds the own batch and never heard ipad-2's (a
            // batch of another group on its feed would cost it a new snapshot, logged).
            try cluster.waitUntil(timeout: 10, what: "the agent to hold ipad-1's batch \(own)") {
                let status = try cluster.status("display-1")
                return status.synced && status.group == "ipad-1" && status.groupSequence == own
            }
            let agentLog = try String(contentsOfFile: cluster.logPath("display-1"), encoding: .utf8)
            #expect(!agentLog.contains("of another device group on this node's feed"), "the agent heard another group on its feed")
            #expect(agentLog.contains("group=ipad-1"), "the agent's snapshot named ipad-1's group")

            // (b) Reads of ipad-2's group (and of everything) with ipad-1's key: FORBIDDEN, counted.
            var reader: CoordinatorClient?
            defer { reader?.close() }
            var ownGroup: Envelope?
            try cluster.waitUntil(timeout: 10, what: "ipad-1's key to be served its own group's snapshot on its route") {
                reader?.close()
                reader = try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: "ipad-1",
                                               curve: Self.curve(ipad1Key, cluster), routingID: "ipad-1")
                ownGroup = try? reader!.sendRaw(Self.snapshotRequest(group: "ipad-1", requestID: 1), timeoutMilliseconds: 1_000)
                return ownGroup != nil
            }
            if case .snapshot(let snapshot)? = ownGroup?.body {
                #expect(snapshot.group == "ipad-1", "its own group, named")
            } else {
                Issue.record("ipad-1's own group's snapshot: \(String(describing: ownGroup?.body))")
            }
            let client = try #require(reader)
            let reads: [(String, [UInt8])] = [
                ("snapshot of ipad-2's group", Self.snapshotRequest(group: "ipad-2", requestID: 2)),
                ("snapshot of the whole state", Self.snapshotRequest(group: "", requestID: 3)),
                ("replay of ipad-2's group", Self.replayRequest(group: "ipad-2", requestID: 4)),
                ("replay of the whole log", Self.replayRequest(group: "", requestID: 5)),
            ]
            for (what, request) in reads {
                let reply = try client.sendRaw(request)
                let error = Self.errorOf(reply)
                #expect(error?.code == .forbidden, "\(what): \(String(describing: reply.body))")
                #expect(error?.message.contains("may read its own device group") == true, "\(what): \(error?.message ?? "")")
            }
            let refusedAtEnd = try HTTPScrape.metrics(http)[Self.refusedSeries] ?? 0
            #expect(refusedAtEnd - refused == 4, "the four reads counted (\(refusedAtEnd - refused))")
            let coordinatorLog = try String(contentsOfFile: cluster.logPath("coordinator"), encoding: .utf8)
            #expect(coordinatorLog.contains("subscription refused"))
            print("""
                group feed: ipad-2's batch \(other), ipad-1's \(own); ipad-1's connection was pushed \(pushed.count) messages on \
                \(Set(pushed.map { $0.topic.debugDescription })); refused subscriptions +\(refused - refusedAtStart), \
                refused reads +\(refusedAtEnd - refused)
                """)
        }
    }

    static func snapshotRequest(group: String, requestID: UInt64) -> [UInt8] {
        var request = Camsync_V1_SnapshotRequest()
        request.group = group
        return Envelope(sender: "ipad-1", requestID: requestID, body: .snapshotRequest(request)).serializedBytes()
    }

    static func replayRequest(group: String, requestID: UInt64) -> [UInt8] {
        var request = Camsync_V1_ReplayRequest()
        request.afterSequence = 0
        request.group = group
        return Envelope(sender: "ipad-1", requestID: requestID, body: .replayRequest(request)).serializedBytes()
    }
}
