import CamsyncClient
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ

/// Identity and liveness across real processes (issue: late joiners, routing-id takeover, foreign
/// attach, refused PiP starts, replay from a sequence, error replies that echo the request id).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct IdentityTests {
    static func curve(_ pair: CurveKeyPair, _ cluster: LocalCluster) -> ClientCurve {
        ClientCurve(publicKey: pair.publicKey, secretKey: pair.secretKey, serverPublicKey: cluster.keys!.coordinator.publicKey)
    }

    @Test("K1: a node that registers long after the coordinator started gets a full liveness timeout")
    func lateJoinerIsNotDeclaredDead() async throws {
        let (topology, dir) = try TestTopology.make([TestTopology.ipad1, TestTopology.ipad2], heartbeatMs: 200, liveness: 5)
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: try camsyncBinary())
        defer {
            cluster.stop(grace: 3)
            try? FileManager.default.removeItem(atPath: dir)
        }
        try cluster.startCoordinator()
        try cluster.startNode("ipad-1")
        try cluster.waitUntil(timeout: 20, what: "ipad-1 alive") { try cluster.coordinatorState().state.nodes["ipad-1"]?.alive == true }
        // Two liveness timeouts (heartbeat × liveness = 1 s) pass on the coordinator's own clock
        // before the second node exists at all.
        try cluster.waitForHeartbeatIntervals(2 * 5, timeout: 60)
        try cluster.startNode("ipad-2")
        try cluster.waitUntil(timeout: 20, what: "ipad-2 alive") { try cluster.coordinatorState().state.nodes["ipad-2"]?.alive == true }
        // Two more timeouts on the coordinator's clock: a node that heart-beats is never declared dead.
        try cluster.waitForHeartbeatIntervals(2 * 5, timeout: 60)
        let snapshot = try cluster.coordinatorState()
        #expect(snapshot.state.nodes["ipad-2"]?.alive == true)
        #expect(snapshot.counters.nodesDeclaredDead == 0, "no node was declared dead: \(snapshot.counters)")
        #expect(snapshot.heartbeatIntervalMilliseconds == 200 && snapshot.liveness == 5, "the settings are on the wire")
    }

    @Test("CURVE: a key cannot take over another node's route; a frame on a foreign route is refused and its request id echoed")
    func routingIDTakeover() async throws {
        // Liveness 2 s (250 ms × 8): on a loaded CI host a node's heartbeats once stalled past 1 s.
        try await withCluster([TestTopology.ipad1, TestTopology.ipad2], heartbeatMs: 250, liveness: 8, curve: true) { cluster in
            let ipad2Key = try #require(cluster.keys?.nodes["ipad-2"])
            let ipad1 = try cluster.controlClient("ipad-1")
            defer { ipad1.close() }
            // An impostor with ipad-2's key and ipad-1's routing id while ipad-1 is connected: it gets no route.
            let impostor = try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: "ipad-2",
                                                 curve: Self.curve(ipad2Key, cluster), routingID: "ipad-1")
            defer { impostor.close() }
            #expect(throws: ClientError.self) { try impostor.send(.goHome(device: "ipad-2"), timeoutMilliseconds: 1_000) }
            // ipad-1 keeps its route: its actions are answered, and it is never declared dead.
            _ = try ipad1.act(.openFullScreen(Apps.notes1, trigger: .user))
            // A liveness timeout (250 ms × 8) and more passes on the coordinator's clock.
            try cluster.waitForHeartbeatIntervals(8 + 4, timeout: 60)
            let snapshot = try cluster.coordinatorState()
            #expect(snapshot.state.nodes["ipad-1"]?.alive == true)
            #expect(snapshot.counters.nodesDeclaredDead == 0)
            _ = try ipad1.act(.openFullScreen(Apps.camera1, trigger: .user))

            // With ipad-1 gone its route is free: a connection with another node's key that takes it is
            // refused on every frame (FORBIDDEN, request id echoed) and dropped, and ipad-1 comes back.
            // The route is free once the coordinator's socket has seen the killed node's connection
            // close; until then ZeroMQ holds a newcomer with the same routing id unread (it has no
            // route yet), so the squatter connects again until its frame is read, within 20 s.
            cluster.signalNode("ipad-1", SIGKILL)
            var answered: Envelope?
            let squatting = Date()
            while answered == nil && Date().timeIntervalSince(squatting) < 20 {
                let squatter = try RequestProbe(endpoint: cluster.commandEndpoint, curve: Self.curve(ipad2Key, cluster), routingID: "ipad-1")
                defer { squatter.close() }
                answered = try squatter.send(.request(.goHome(device: "ipad-2"), sender: "ipad-2", requestID: 4242), timeoutMilliseconds: 2_000)
            }
            let reply = try #require(answered, "the squatter's frame was read and answered within 20 s")
            guard case .error(let error)? = reply.body else { Issue.record("expected an error, got \(reply)"); return }
            #expect(error.code == .forbidden)
            #expect(error.message.contains("routing id"))
            #expect(reply.requestID == 4242)
            try cluster.startNode("ipad-1")
            try cluster.waitUntil(timeout: 20, what: "ipad-1 rejoined") {
                let status = try cluster.status("ipad-1", after: .max - 1)
                return status.registered && status.synced
            }
            let counters = try cluster.coordinatorState().counters
            #expect(counters.badFrames.contains { $0.reason == "routingID" && $0.count >= 1 })
        }
    }

    @Test("a device cannot attach a display, whoever it is attached to; the display attaches itself")
    func foreignAttachForbidden() async throws {
        try await withCluster { cluster in
            let ipad2 = try cluster.controlClient("ipad-2")
            defer { ipad2.close() }
            let before = try cluster.coordinatorState()
            #expect(before.state.nodes["display-1"]?.attachedTo == "ipad-1")
            #expect {
                try ipad2.act(.attachDisplay(display: "display-1", device: "ipad-2"), timeoutMilliseconds: 5_000)
            } throws: { error in
                (error as? ClientError)?.refusal?.code == .forbidden
            }
            let after = try cluster.coordinatorState()
            #expect(after.state.nodes["display-1"]?.attachedTo == "ipad-1")
            #expect(after.sequence == before.sequence, "nothing changed")
        }
    }

    @Test("SPEC §1 under CURVE: a display attaches itself only to the device its configuration names; an admin may attach it elsewhere")
    func displaySelfAttachOnlyToItsConfiguredDevice() async throws {
        try await withCluster(curve: true) { cluster in
            let display = try cluster.controlClient("display-1")
            defer { display.close() }
            let before = try cluster.coordinatorState()
            #expect(before.state.nodes["display-1"]?.attachedTo == "ipad-1", "display-1's configuration names ipad-1")
            // Through its own node, under its own key: refused, nothing changes.
            #expect {
                try display.act(.attachDisplay(display: "display-1", device: "ipad-2"), timeoutMilliseconds: 5_000)
            } throws: { error in
                guard let refusal = (error as? ClientError)?.refusal else { return false }
                return refusal.code == .forbidden && refusal.message.contains("only an admin")
            }
            let refused = try cluster.coordinatorState()
            #expect(refused.state.nodes["display-1"]?.attachedTo == "ipad-1")
            #expect(refused.sequence == before.sequence, "nothing changed")
            // Re-attaching to the device it is on already is its own act, answered as a no-op: refused
            // (alreadyExists), no sequence taken.
            #expect {
                try display.act(.attachDisplay(display: "display-1", device: "ipad-1"), timeoutMilliseconds: 5_000)
            } throws: { error in
                (error as? ClientError)?.refusal?.rejection?.code == .alreadyExists
            }
            #expect(try cluster.coordinatorState().sequence == before.sequence, "a no-op takes no sequence")
            // An admin (the admin key) may attach it to another device.
            let admin = try cluster.coordinatorClient()
            defer { admin.close() }
            let sequence = try admin.send(.attachDisplay(display: "display-1", device: "ipad-2"))
            #expect(sequence > before.sequence)
            try cluster.waitUntil(timeout: 5, what: "display-1 attached to ipad-2") {
                try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-2"
            }
            // Back to the device its configuration names: its own act, accepted.
            let back = try display.act(.attachDisplay(display: "display-1", device: "ipad-1"), timeoutMilliseconds: 5_000)
            #expect(back > sequence)
            try cluster.waitUntil(timeout: 5, what: "display-1 attached to ipad-1 again") {
                try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
            }
        }
    }

    @Test("P1: a refused PiP start's failedToStartPictureInPicture is seen by whoever asks for what followed the action")
    func refusedPiPStartIsObservable() async throws {
        try await withCluster([TestTopology.ipad1]) { cluster in
            let ipad1 = try cluster.controlClient("ipad-1")
            defer { ipad1.close() }
            _ = try ipad1.act(.openFullScreen(Apps.notes1, trigger: .user))
            let baseline = try cluster.coordinatorState().sequence
            #expect(throws: ClientError.self) { try ipad1.act(.startPiP(Apps.notes1, trigger: .user)) }
            let events = try cluster.status("ipad-1", after: baseline).appEvents
            #expect(events.contains { $0.name == "failedToStartPictureInPicture" && $0.app.bundleID == Apps.notes1.bundleID },
                    "events after \(baseline): \(events.map(\.name))")
        }
    }

    @Test("replay from a sequence: the journal's batches are byte-identical to the published ones, consecutive")
    func replayFromSequence() async throws {
        try await withCluster([TestTopology.ipad1]) { cluster in
            let subscriber = try cluster.eventSubscriber()
            defer { subscriber.close() }
            try cluster.waitUntil(timeout: 5, what: "the subscription is live") { try subscriber.next(timeoutMilliseconds: 300) != nil }
            let ipad1 = try cluster.controlClient("ipad-1")
            defer { ipad1.close() }
            let start = try cluster.coordinatorState().sequence
            var last: UInt64 = 0
            for app in [Apps.notes1, Apps.camera1, Apps.scanner1] { last = try ipad1.act(.openFullScreen(app, trigger: .user)) }
            var published: [UInt64: [UInt8]] = [:]
            try cluster.waitUntil(timeout: 5, what: "the batches on PUB") {
                while let (_, envelope) = try subscriber.next(timeoutMilliseconds: 100) {
                    if case .eventBatch(let batch)? = envelope.body { published[batch.sequence] = WireCodec.encode(batch) }
                }
                return published[last] != nil
            }
            let client = try cluster.coordinatorClient()
            defer { client.close() }
            let replay = try client.replay(after: start)
            #expect(replay.batches.map(\.sequence) == Array((start + 1)...replay.lastSequence))
            for batch in replay.batches where published[batch.sequence] != nil {
                #expect(WireCodec.encode(batch) == published[batch.sequence], "batch \(batch.sequence)")
            }
            // Paging: one at a time, then nothing after the last.
            #expect(try client.replay(after: start, maxBatches: 1).batches.map(\.sequence) == [start + 1])
            #expect(try client.replay(after: replay.lastSequence).batches.isEmpty)
            // The whole history from the start, through the CLI.
            let output = try runCamsync(["ctl", "watch", "--coordinator", cluster.commandEndpoint, "--events", cluster.eventEndpoint,
                                         "--from-sequence", "0", "--seconds", "1", "--json"])
            let sequences = output.split(separator: "\n").compactMap { line -> UInt64? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                return (object["sequence"] as? NSNumber)?.uint64Value
            }
            #expect(Array(sequences.prefix(Int(last))) == Array(1...last))
        }
    }

    @Test("bad frames: the request id is echoed when it can be read; an unknown command case is called unknown")
    func errorRepliesEchoRequestIDs() async throws {
        try await withCluster([TestTopology.ipad1]) { cluster in
            let client = try cluster.coordinatorClient()
            defer { client.close() }
            // protocol_version 2, request_id 777, then a truncated length-delimited field.
            let truncated: [UInt8] = [0x08, 0x02, 0x18] + ProtobufWire.varint(777) + [0x52, 0x40, 0x01]
            let reply1 = try client.sendRaw(truncated)
            #expect(reply1.requestID == 777)
            guard case .error(let error1)? = reply1.body else { Issue.record("expected an error"); return }
            #expect(error1.code == .malformed)
            // A command whose oneof holds field 999, unknown to this schema.
            var command: [UInt8] = []
            ProtobufWire.append(WireField(number: 999, value: .bytes([], nested: nil)), to: &command)
            var envelope = Envelope(sender: "admin", requestID: 778, body: .command(Camsync_V1_Command()))
            envelope.command = try Camsync_V1_Command(serializedBytes: command)
            let reply2 = try client.sendRaw(envelope.serializedBytes())
            #expect(reply2.requestID == 778)
            guard case .error(let error2)? = reply2.body else { Issue.record("expected an error"); return }
            #expect(error2.code == .malformed)
            #expect(error2.message.contains("does not know (field 999)"), "\(error2.message)")
        }
    }
}

/// A DEALER with a chosen routing id that sends one envelope and returns the first reply (or nil).
final class RequestProbe {
    let socket: ZMQSocket
    init(endpoint: String, curve: ClientCurve, routingID: String) throws {
        socket = try ZMQSocket(ZMQContext(), .dealer)
        try socket.set([.linger(milliseconds: 0), .routingID(Array(routingID.utf8)),
                        .curveServerKey(try #require(curve.serverKey(forCommandEndpoint: endpoint))),
                        .curvePublicKey(curve.publicKey), .curveSecretKey(curve.secretKey)])
        try socket.connect(endpoint)
    }

    func send(_ envelope: Envelope, timeoutMilliseconds: Int = 3_000) throws -> Envelope? {
        guard try socket.send([envelope.serializedBytes()], dontWait: true) else { return nil }
        let poller = Poller()
        poller.register(socket, for: .readable)
        guard try !poller.poll(timeoutMs: timeoutMilliseconds).isEmpty, let message = try socket.receive(dontWait: true),
              let frame = message.frames.last else { return nil }
        return try Envelope.decode(frame)
    }

    func close() { socket.close() }
}

/// Runs `camsync ARGS` to completion (killed after `timeout` seconds) and returns its stdout; stderr is discarded.
func runCamsync(_ arguments: [String], timeout: Double = 30) throws -> String {
    try runCommand(camsyncBinary(), arguments, includeStandardError: false, timeout: timeout).output
}
