import CamsyncClient
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Testing
import ZeroMQ

/// Least privilege for reads under CURVE (docs/PROTOCOL.md "Following one group"), across real
/// processes: ipad-1 with the C agent's display-1 attached, and ipad-2. A node's key reads its own
/// feed and `hb` only, and its own device group's snapshot and replay only; an admin reads `all`.
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

    static func batch(_ envelope: Envelope) -> Camsync_V1_EventBatch? {
        if case .eventBatch(let batch)? = envelope.body { return batch }
        return nil
    }

    static func errorOf(_ reply: Envelope) -> Camsync_V1_Error? {
        if case .error(let error)? = reply.body { return error }
        return nil
    }

    @Test("a node's key gets its own feed only (the C agent, and a SUB asking for ev., the empty topic and all); its reads of ipad-2's group are FORBIDDEN; an admin on all sees both groups")
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

            // (a) A SUB with ipad-1's key asks for everything; the coordinator admits its own feed only.
            let ownFeed = EventTopic.node("ipad-1")
            let spy = try EventSubscriber(context: ZMQContext(), endpoint: cluster.eventEndpoint,
                                          topics: ["", "ev.", EventTopic.everyBatch, ownFeed], curve: Self.curve(ipad1Key, cluster))
            defer { spy.close() }
            let admin = try cluster.eventSubscriber(topics: [EventTopic.everyBatch, EventTopic.heartbeat])
            defer { admin.close() }
            // Live once something arrives: ipad-1's group bookmark on its feed (the other subscriptions
            // went out before it, in order), a heartbeat for the admin.
            var spied = try Self.collect(spy, timeout: 10) { !$0.isEmpty }
            try #require(!spied.isEmpty, "the spy SUB heard nothing on ipad-1's feed")
            try #require(!(try Self.collect(admin, timeout: 10) { !$0.isEmpty }).isEmpty, "the admin SUB heard nothing")
            var refused = refusedAtStart
            try cluster.waitUntil(timeout: 10, what: "the three subscriptions beyond ipad-1's feed to be counted") {
                refused = try HTTPScrape.metrics(http)[Self.refusedSeries] ?? 0
                return refused - refusedAtStart >= 3
            }
            #expect(refused - refusedAtStart == 3, "\"\", \"ev.\" and \"all\" refused, its own feed admitted")

            // A batch of ipad-2's group, then a later one of ipad-1's.
            let command = try cluster.coordinatorClient()
            defer { command.close() }
            let other = try command.send(.openFullScreen(Apps.notes2, trigger: .user))
            let own = try command.send(.openFullScreen(Apps.notes1, trigger: .user))
            #expect(own > other)
            spied += try Self.collect(spy, timeout: 10) { $0.contains { Self.batch($0.envelope)?.sequence == own } }
            #expect(spied.contains { Self.batch($0.envelope)?.sequence == own }, "ipad-1's own batch \(own) reached its feed")
            #expect(spied.allSatisfy { $0.topic == ownFeed }, "only ipad-1's feed: \(Set(spied.map(\.topic)))")
            #expect(!spied.contains { Self.batch($0.envelope)?.sequence == other }, "ipad-2's batch \(other) never came")
            #expect(spied.compactMap { Self.batch($0.envelope) }.allSatisfy { $0.groups.contains { $0.group == "ipad-1" } },
                    "every batch on the feed is one of ipad-1's group")

            // (c) The admin on `all` sees both groups' batches.
            let watched = try Self.collect(admin, timeout: 10) { heard in
                [other, own].allSatisfy { sequence in heard.contains { Self.batch($0.envelope)?.sequence == sequence } }
            }
            let watchedSequences = Set(watched.compactMap { Self.batch($0.envelope)?.sequence })
            #expect(watchedSequences.isSuperset(of: [other, own]), "the admin saw \(watchedSequences.sorted())")
            #expect(watched.filter { Self.batch($0.envelope) != nil }.allSatisfy { $0.topic == EventTopic.everyBatch })

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
            // ipad-1's process goes so that its key may take its route; it stays alive (liveness).
            cluster.signalNode("ipad-1", SIGKILL)
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
                group feed: ipad-2's batch \(other), ipad-1's \(own); ipad-1's key heard \(spied.count) messages on \
                \(Set(spied.map { $0.topic.debugDescription })); refused subscriptions +\(refused - refusedAtStart), \
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
