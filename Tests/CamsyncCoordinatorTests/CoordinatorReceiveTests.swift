import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// The coordinator's protocol logic as it runs in the process, without sockets, a journal or clocks:
/// frames and time in, actions out.
@Suite("CoordinatorCore.receive / tick / turnCommitted: frames and time in, actions out")
struct CoordinatorReceiveTests {
    static let ipad1 = Array("ipad-1".utf8)

    static func core(security: CoordinatorSecurity? = nil, snapshotEvery: UInt64 = 10_000, snapshotsPerTurn: Int = 64,
                     snapshotBacklog: Int = 20_000, registrationsPerTurn: Int = 64) -> CoordinatorCore {
        var settings = CoordinatorSettings(dataDirectory: "", heartbeatIntervalMilliseconds: 250, liveness: 4,
                                           snapshotEvery: snapshotEvery, security: security)
        settings.snapshotsPerTurn = snapshotsPerTurn
        settings.registrationsPerTurn = registrationsPerTurn
        settings.snapshotBacklog = snapshotBacklog
        var core = CoordinatorCore(settings: settings, term: 7)
        core.beginServing(at: at(0))
        return core
    }

    static func at(_ monotonic: Int64) -> CoordinatorTime {
        CoordinatorTime(monotonicMilliseconds: monotonic, wallMilliseconds: 1_000_000 + monotonic)
    }

    static func frame(_ envelope: Envelope, route: [UInt8] = ipad1, userID: String? = nil,
                      connection: ConnectionHandle? = nil) -> InboundFrame {
        InboundFrame(frames: [route, envelope.serializedBytes()], userID: userID, connection: connection)
    }

    static func register(_ node: NodeID, requestID: UInt64 = 1) -> Envelope {
        .request(CoordinatorCoreTests.register(node), sender: node.rawValue, requestID: requestID)
    }

    static func appends(_ actions: [CoordinatorAction]) -> [JournalEntry] {
        actions.flatMap { action -> [JournalEntry] in
            if case .commit(let commit) = action { commit.entries } else { [] }
        }
    }

    static func replies(_ actions: [CoordinatorAction]) -> [Envelope] {
        actions.compactMap { $0.reply?.envelope }
    }

    @Test("an accepted command: its commit comes first; its ack and its publication only once the shell says it is durable")
    func acceptedCommand() throws {
        var core = Self.core()
        let decided = core.receive(Self.frame(Self.register("ipad-1", requestID: 42)), at: Self.at(5))
        #expect(Self.replies(decided).isEmpty, "nothing leaves before the turn ends")
        #expect(decided.contains(.count(.accepted)))
        let end = core.endTurn(at: Self.at(6))
        #expect(end.count == 1)
        guard case .commit(let commit)? = end.first, let entry = commit.entries.first else {
            Issue.record("no commit: \(end)"); return
        }
        #expect(commit.leadership == nil, "the embedded journal is this coordinator's own")
        #expect(commit.follows == nil, "no turn before it is in flight")
        #expect(entry.sequence == 1 && entry.term == 7 && entry.node == "ipad-1" && entry.requestID == 42)
        #expect(entry.timeMilliseconds == 1_000_005)
        #expect(core.committedSequence == 0, "nothing is committed until the shell says so")
        #expect(core.endTurn(at: Self.at(7)).isEmpty, "a turn with nothing accepted commits nothing")

        let released = core.turnCommitted(commit.id, at: Self.at(8))
        #expect(core.committedSequence == 1)
        let replyIndex = try #require(released.firstIndex { if case .reply = $0 { true } else { false } })
        let publishIndex = try #require(released.firstIndex { if case .push = $0 { true } else { false } })
        #expect(replyIndex < publishIndex, "replies, then publications")
        guard case .reply(let route, let ack) = released[replyIndex],
              case .push(let pushedTo, let topic, let publication) = released[publishIndex] else { return }
        #expect(route == Self.ipad1)
        #expect(ack == .ack(sequence: 1, requestID: 42, term: 7))
        #expect(pushedTo == Self.ipad1 && topic == "ev.ipad-1\u{0}", "a registration goes to the registering node's group")
        #expect(released.contains { if case .publish(EventTopic.everyBatch, publication) = $0 { true } else { false } },
                "and once on the event socket for the observers of everything")
        guard case .eventBatch(let published)? = publication.envelope.body else { Issue.record("not a batch"); return }
        #expect(published.sequence == 1 && published.originRequestID == 42)
        #expect(entry.batch == WireCodec.encode(published), "the log keeps exactly the batch that was published")
        #expect(publication.bytes == publication.envelope.serializedBytes(), "what is sent is the envelope, byte for byte")
        #expect(released.contains(.count(.groupCommit(size: 1))))
        #expect(core.counters.commandsAccepted == 1)
    }

    @Test("embedded: a turn the journal did not take is never acknowledged, and the coordinator stops (fail-stop)")
    func embeddedCommitFailure() {
        var core = Self.core()
        _ = core.receive(Self.frame(Self.register("ipad-1", requestID: 42)), at: Self.at(5))
        guard case .commit(let commit)? = core.endTurn(at: Self.at(6)).first else { Issue.record("no commit"); return }
        let failed = core.turnFailed(commit.id, StoreFailure(.unavailable, "disk I/O error"), at: Self.at(7))
        #expect(Self.replies(failed).isEmpty)
        #expect(failed.contains { if case .stop = $0 { true } else { false } })
        #expect(!failed.contains { if case .publish = $0 { true } else { false } })
    }

    @Test("K5: the same request id again gets the same ack and no second append")
    func retry() {
        var core = Self.core()
        _ = core.receiveTurn(Self.frame(Self.register("ipad-1", requestID: 9)), at: Self.at(1))
        let again = core.receiveTurn(Self.frame(Self.register("ipad-1", requestID: 9)), at: Self.at(2))
        #expect(!again.contains { if case .commit = $0 { true } else { false } })
        #expect(Self.replies(again) == [.ack(sequence: 1, requestID: 9, term: 7)])
        #expect(again.contains(.count(.retried)))
        #expect(core.sequence == 1)
    }

    @Test("bad frames get an error reply with a code, a count by reason, and change nothing",
          arguments: [
            ([0x0A, 0xFF, 0xFF], Camsync_V1_ErrorCode.malformed, "malformed"),
            (Envelope(sender: "", requestID: 5, body: .nodeHeartbeat(.init())).serializedBytes(), .forbidden, "forbidden"),
            (Envelope(sender: "ipad-1", requestID: 5, body: .ack(.init())).serializedBytes(), .unexpectedMessage,
             "unexpectedMessage"),
            (Envelope.request(.goHome(device: "ipad-1"), sender: "ipad-1", requestID: 5).serializedBytes(), .unknownNode,
             ""),
          ] as [([UInt8], Camsync_V1_ErrorCode, String)])
    func badFrames(bytes: [UInt8], code: Camsync_V1_ErrorCode, reason: String) {
        var core = Self.core()
        let before = core.state
        let actions = core.receiveTurn(InboundFrame(frames: [Self.ipad1, bytes]), at: Self.at(1))
        let replies = Self.replies(actions)
        #expect(replies.count == 1)
        guard case .error(let error)? = replies.first?.body else { Issue.record("no error reply: \(actions)"); return }
        #expect(error.code == code)
        #expect(!error.message.isEmpty)
        if let reason = BadFrameReason(rawValue: reason) { #expect(core.counters.badFramesByReason[reason] == 1) }
        #expect(core.state == before)
        #expect(!actions.contains { if case .commit = $0 { true } else { false } })
    }

    @Test("CURVE: a key caught on another node's route is refused, its connection dropped and its key suspended")
    func routeTakeover() {
        let security = CoordinatorSecurity(secretKey: "s", nodeKeys: ["ipad-1": "KEY1", "ipad-2": "KEY2"], adminKeys: [])
        var core = Self.core(security: security)
        let actions = core.receiveTurn(Self.frame(Self.register("ipad-2"), route: Self.ipad1, userID: "KEY2",
                                              connection: ConnectionHandle(descriptor: 33)), at: Self.at(1))
        guard case .error(let error)? = Self.replies(actions).first?.body else { Issue.record("no refusal"); return }
        #expect(error.code == .forbidden)
        #expect(!actions.contains(.dropConnection(ConnectionHandle(descriptor: 33))), "not before the refusal has left")
        #expect(actions.contains(.suspendKey("KEY2", milliseconds: 10_000)))
        #expect(core.counters.badFramesByReason[.routingID] == 1)
        _ = core.tickTurn(at: Self.at(2))
        #expect(core.nextDeadline(at: Self.at(2)) == 101, "the drop is the next thing due")
        #expect(core.tickTurn(at: Self.at(100)).contains(.dropConnection(ConnectionHandle(descriptor: 33))) == false)
        #expect(core.tickTurn(at: Self.at(101)).contains(.dropConnection(ConnectionHandle(descriptor: 33))))
        // The key on its own route is served.
        let own = core.receiveTurn(Self.frame(Self.register("ipad-2"), route: Array("ipad-2".utf8), userID: "KEY2"), at: Self.at(2))
        #expect(Self.replies(own) == [.ack(sequence: 1, requestID: 1, term: 7)])
    }

    @Test("CURVE: a connection caught twice is dropped once; a descriptor reused by another key's connection is not dropped")
    func routeDropsAreNotRepeatedOrMisdirected() {
        let security = CoordinatorSecurity(secretKey: "s", nodeKeys: ["ipad-1": "KEY1", "ipad-2": "KEY2"], adminKeys: ["ADMIN"])
        let caught = ConnectionHandle(descriptor: 33)
        func drops(_ actions: [CoordinatorAction]) -> Int { actions.filter { $0 == .dropConnection(caught) }.count }

        var twice = Self.core(security: security)
        _ = twice.receiveTurn(Self.frame(Self.register("ipad-2"), route: Self.ipad1, userID: "KEY2", connection: caught), at: Self.at(1))
        _ = twice.receiveTurn(Self.frame(Self.register("ipad-2", requestID: 2), route: Self.ipad1, userID: "KEY2", connection: caught),
                              at: Self.at(50))
        #expect(drops(twice.tickTurn(at: Self.at(101))) == 1)
        #expect(drops(twice.tickTurn(at: Self.at(151))) == 0, "the second catch on the same connection adds no second drop")

        var reused = Self.core(security: security)
        _ = reused.receiveTurn(Self.frame(Self.register("ipad-2"), route: Self.ipad1, userID: "KEY2", connection: caught), at: Self.at(1))
        // The caught connection closed; an admin's new connection got descriptor 33 and is served.
        let admin = reused.receiveTurn(Self.frame(.snapshotRequest(sender: "admin", requestID: 5), route: Array("cli".utf8),
                                                  userID: "ADMIN", connection: caught), at: Self.at(20))
        #expect(Self.replies(admin).contains { if case .snapshot? = $0.body { true } else { false } })
        #expect(drops(reused.tickTurn(at: Self.at(101))) == 0, "another key on descriptor 33: not the connection caught")
    }

    @Test("K1: tick declares a node dead only after the timeout of silence, as the coordinator's own logged command")
    func livenessThroughTick() {
        var core = Self.core()
        _ = core.receiveTurn(Self.frame(Self.register("ipad-1")), at: Self.at(100))
        let early = core.tickTurn(at: Self.at(100 + 1_000))
        #expect(!early.contains { if case .commit = $0 { true } else { false } })
        #expect(core.nextDeadline(at: Self.at(1_100)) <= 100 + 1_001)
        let late = core.tickTurn(at: Self.at(100 + 1_001))
        let entries = Self.appends(late)
        #expect(entries.map(\.node) == [Envelope.coordinatorSender])
        #expect(entries.map(\.sequence) == [2])
        #expect(late.contains(.count(.declaredDead)))
        #expect(core.state.nodes["ipad-1"]?.alive == false)
        #expect(!late.contains { if case .reply = $0 { true } else { false } }, "nobody to answer for its own command")
    }

    @Test("heartbeats: one on the first tick, then one per interval, carrying term, sequence and liveness settings")
    func heartbeats() {
        var core = Self.core()
        func heartbeats(_ actions: [CoordinatorAction]) -> [Camsync_V1_CoordinatorHeartbeat] {
            actions.compactMap {
                if case .publish("hb", let publication) = $0, case .coordinatorHeartbeat(let body)? = publication.envelope.body { body } else { nil }
            }
        }
        let first = heartbeats(core.tickTurn(at: Self.at(0)))
        #expect(first.count == 1)
        #expect(first.first?.heartbeatIntervalMs == 250 && first.first?.liveness == 4)
        #expect(heartbeats(core.tickTurn(at: Self.at(249))).isEmpty)
        #expect(heartbeats(core.tickTurn(at: Self.at(250))).count == 1)
        #expect(core.nextDeadline(at: Self.at(251)) == 500)
    }

    @Test("replays: nothing newer is answered at once; kept batches from memory; otherwise the shell reads the log, and an empty log is COMPACTED")
    func replays() throws {
        var core = Self.core()
        let request = { (after: UInt64) in
            Envelope(sender: "ipad-1", requestID: 3, body: .replayRequest(.with { $0.afterSequence = after }))
        }
        var actions = core.receiveTurn(Self.frame(Self.register("ipad-1")), at: Self.at(1))
        let logged = Self.appends(actions)
        actions = core.receiveTurn(Self.frame(request(1)), at: Self.at(2))
        guard case .replay(let upToDate)? = Self.replies(actions).first?.body else { Issue.record("\(actions)"); return }
        #expect(upToDate.batches.isEmpty && upToDate.lastSequence == 1)
        actions = core.receiveTurn(Self.frame(request(0)), at: Self.at(3))
        guard case .replay(let kept)? = Self.replies(actions).first?.body else { Issue.record("\(actions)"); return }
        #expect(kept.batches.map(\.sequence) == [1], "batch 1 is kept in memory: no log read")

        // A restarted coordinator keeps nothing in memory: the log is read.
        var restarted = CoordinatorCore(settings: core.settings, state: core.state, sequence: 1, term: 8)
        restarted.beginServing(at: Self.at(3))
        actions = restarted.receiveTurn(Self.frame(request(0)), at: Self.at(3))
        #expect(actions == [.serveReplay(routingID: Self.ipad1, requestID: 3, after: 0, limit: CoordinatorCore.replayBatchLimit)])
        let served = restarted.runTurn(at: Self.at(4)) {
            $0.replayReply(to: Self.ipad1, after: 0, requestID: 3, stored: .success(logged.map(\.batch)))
        }
        guard case .replay(let replay)? = Self.replies(served).first?.body else { Issue.record("\(served)"); return }
        #expect(replay.batches.map(\.sequence) == [1])
        let compacted = restarted.runTurn(at: Self.at(5)) { $0.replayReply(to: Self.ipad1, after: 0, requestID: 3, stored: .success([])) }
        guard case .error(let error)? = Self.replies(compacted).first?.body else { Issue.record("\(compacted)"); return }
        #expect(error.code == .compacted)
        #expect(core.counters.replaysServed == 2 && restarted.counters.replaysServed == 1)
    }

    @Test("K3: a snapshot is written once snapshotEvery commands are committed")
    func snapshots() throws {
        var core = Self.core(snapshotEvery: 2)
        #expect(!core.receiveTurn(Self.frame(Self.register("ipad-1")), at: Self.at(1)).contains {
            if case .writeSnapshot = $0 { true } else { false } })
        let actions = core.receiveTurn(Self.frame(Self.register("ipad-2"), route: Array("ipad-2".utf8)), at: Self.at(2))
        guard case .writeSnapshot(let snapshot, _, _)? = actions.first(where: { if case .writeSnapshot = $0 { true } else { false } })
        else { Issue.record("no snapshot: \(actions)"); return }
        #expect(snapshot.sequence == 2 && snapshot.term == 7)
        #expect(try WireCodec.decodeState(snapshot.state) == core.state)
    }

    @Test("a snapshot reply carries the state, the liveness settings and the counters")
    func snapshotReply() {
        var core = Self.core()
        _ = core.receiveTurn(Self.frame(Self.register("ipad-1")), at: Self.at(1))
        _ = core.receiveTurn(InboundFrame(frames: [Self.ipad1, [0xFF]]), at: Self.at(2))
        let actions = core.receiveTurn(Self.frame(.snapshotRequest(sender: "ipad-1", requestID: 4)), at: Self.at(3))
        guard case .snapshot(let snapshot)? = Self.replies(actions).first?.body else { Issue.record("\(actions)"); return }
        #expect(snapshot.sequence == 1 && snapshot.livenessSettings.liveness == 4)
        #expect(snapshot.counters.commandsAccepted == 1)
        #expect(snapshot.counters.badFrames.map(\.reason) == ["malformed"])
    }
}

extension CoordinatorCore {
    /// `receive` as one whole turn against a log that takes every commit (`runTurn`).
    mutating func receiveTurn(_ frame: InboundFrame, at time: CoordinatorTime) -> [CoordinatorAction] {
        runTurn(at: time) { $0.receive(frame, at: time) }
    }

    /// `tick` as one whole turn against a log that takes every commit.
    mutating func tickTurn(at time: CoordinatorTime) -> [CoordinatorAction] {
        runTurn(at: time) { $0.tick(at: time) }
    }
}
