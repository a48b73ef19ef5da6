import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// SPEC K6 and K7 in the core, without etcd, sockets or clocks: every leadership transition is an
/// event in and actions out. A standby decides nothing and names the leader; it follows the
/// leader's log through the engine; it leads only once elected and caught up with the log; it
/// steps down (and resigns) whenever it can no longer be sure it leads.
@Suite("CoordinatorCore leadership: rebuilding, standby, catching up, leading, stepping down")
struct CoordinatorLeadershipTests {
    typealias R = CoordinatorReceiveTests

    static let leaderAddress: Camsync_V1_CoordinatorAddress = .with {
        $0.name = "c1"; $0.commandEndpoint = "tcp://10.0.0.1:5555"; $0.eventEndpoint = "tcp://10.0.0.1:5556"; $0.term = 41
    }
    static let ownAddress: Camsync_V1_CoordinatorAddress = .with {
        $0.name = "c2"; $0.commandEndpoint = "tcp://10.0.0.2:5555"; $0.eventEndpoint = "tcp://10.0.0.2:5556"
    }
    static func leadership(_ term: Int64, lease: Int64 = 7) -> EtcdLeadership {
        EtcdLeadership(election: "/camsync/leader", key: "/camsync/leader/\(lease)", term: term, lease: lease)
    }

    /// An HA core at time 0, before it read anything.
    static func fresh() -> CoordinatorCore {
        var core = CoordinatorCore(settings: R.core().settings, highAvailability: ownAddress)
        core.beginServing(at: R.at(0))
        return core
    }

    /// An HA standby that read `log` from etcd and knows `leader`.
    static func standby(log: [Camsync_V1_EventBatch] = [], leader: Camsync_V1_CoordinatorAddress? = leaderAddress) -> CoordinatorCore {
        var core = fresh()
        #expect(core.tick(at: R.at(0)) == [.rebuildFromLog], "a fresh HA core reads its state first")
        _ = core.rebuilt(snapshot: nil, batches: log.map(LoggedBatch.init), at: R.at(1))
        _ = core.observe(.leaderObserved(leader), at: R.at(1))
        #expect(core.role == .standby)
        return core
    }

    /// Wins `term` (lease 7 valid until `leaseUntil`) and catches up with `tail`: the actions of the win
    /// and of the log's read.
    static func lead(_ core: inout CoordinatorCore, term: Int64, tail: [Camsync_V1_EventBatch] = [], at time: Int64 = 10,
                     leaseUntil: Int64 = 2_000) -> [CoordinatorAction] {
        _ = core.observe(.leaseRenewed(lease: 7, validUntil: leaseUntil), at: R.at(time))
        var actions = core.observe(.won(leadership(term)), at: R.at(time))
        #expect(actions.contains(.readLog(after: core.sequence)), "a win first reads what the log holds after this state")
        actions += core.logRead(tail.map(LoggedBatch.init), at: R.at(time))
        return actions
    }

    /// The batches a leader publishes for `count` registrations (what its log holds).
    static func leaderBatches(_ count: Int) -> [Camsync_V1_EventBatch] {
        var leader = R.core()
        var batches: [Camsync_V1_EventBatch] = []
        for index in 1...count {
            let node = NodeID("ipad-\(index)")
            for case .publish(EventTopic.everyBatch, let publication) in leader.receiveTurn(R.frame(R.register(node, requestID: UInt64(100 + index)),
                                                                                route: Array(node.rawValue.utf8)), at: R.at(Int64(index))) {
                if case .eventBatch(let batch)? = publication.envelope.body { batches.append(batch) }
            }
        }
        return batches
    }

    static func notLeader(_ actions: [CoordinatorAction]) -> [Camsync_V1_Error] {
        R.replies(actions).compactMap { if case .error(let error)? = $0.body, error.code == .notLeader { error } else { nil } }
    }

    static func resigns(_ actions: [CoordinatorAction]) -> [EtcdLeadership] {
        actions.compactMap { if case .resign(let leadership) = $0 { leadership } else { nil } }
    }

    // MARK: Standby

    @Test("a standby answers commands, snapshot and replay requests with NOT_LEADER naming the leader, and changes nothing",
          arguments: [
              R.register("ipad-1", requestID: 5),
              Envelope.snapshotRequest(sender: "ipad-1", requestID: 5),
              Envelope(sender: "ipad-1", requestID: 5, body: .replayRequest(.with { $0.afterSequence = 0 })),
          ])
    func standbyRefuses(_ request: Envelope) throws {
        var core = Self.standby()
        let actions = core.receiveTurn(R.frame(request), at: R.at(1))
        let reply = try #require(R.replies(actions).first)
        guard case .error(let error)? = reply.body else { Issue.record("not an error: \(reply)"); return }
        #expect(error.code == .notLeader)
        #expect(error.leader == Self.leaderAddress)
        #expect(error.message.contains("c1") && error.message.contains("tcp://10.0.0.1:5555"))
        #expect(reply.requestID == 5)
        #expect(!actions.contains { if case .commit = $0 { true } else { false } })
        #expect(!actions.contains { if case .publish = $0 { true } else { false } })
        #expect(core.sequence == 0 && core.state.nodes.isEmpty)
        #expect(core.counters.commandsRefused == 1, "NOT_LEADER is counted where /metrics and ctl status read it")
    }

    @Test("store trouble is said in NOT_LEADER until etcd answers again; a node heartbeat gets no answer")
    func storeTroubleAndRecovery() throws {
        var core = Self.standby(leader: nil)
        _ = core.observe(.storeTrouble("etcd has no quorum"), at: R.at(2))
        let reply = try #require(R.replies(core.receiveTurn(R.frame(R.register("ipad-1")), at: R.at(3))).first)
        guard case .error(let error)? = reply.body else { Issue.record("not an error"); return }
        #expect(error.code == .notLeader && !error.hasLeader)
        #expect(error.message.contains("etcd has no quorum"))
        let heartbeat = Envelope.nodeHeartbeat(sender: "ipad-1", time: Instant(milliseconds: 1))
        #expect(core.receiveTurn(R.frame(heartbeat), at: R.at(4)).isEmpty)

        _ = core.observe(.leaderObserved(Self.leaderAddress), at: R.at(5))
        let after = Self.notLeader(core.receiveTurn(R.frame(R.register("ipad-1")), at: R.at(6)))
        #expect(after.first?.leader == Self.leaderAddress)
        #expect(after.first?.message.contains("no quorum") == false, "the trouble is over once etcd answers")
    }

    @Test("a failed read is retried after 100 ms, then 200, 400 … at most 2 s; the reason is said meanwhile")
    func readRetries() {
        var core = Self.fresh()
        var time: Int64 = 0
        var delays: [Int64] = []
        #expect(core.tick(at: R.at(time)) == [.rebuildFromLog])
        for _ in 0..<7 {
            _ = core.storeFailed(StoreFailure(.unavailable, "etcd cannot be reached"), at: R.at(time))
            let next = core.highAvailability?.readDue ?? 0
            #expect(core.nextDeadline(at: R.at(time)) <= next, "the loop wakes for the retry")
            #expect(core.tick(at: R.at(next - 1)).contains(.rebuildFromLog) == false)
            #expect(core.tick(at: R.at(next)).contains(.rebuildFromLog))
            delays.append(next - time)
            time = next
        }
        #expect(delays == [100, 200, 400, 800, 1_600, 2_000, 2_000])
        #expect(Self.notLeader(core.receiveTurn(R.frame(R.register("ipad-1")), at: R.at(time))).first?.message
                    .contains("etcd cannot be reached") == true)
        _ = core.rebuilt(snapshot: nil, batches: [], at: R.at(time))
        #expect(core.role == .standby && core.highAvailability?.retryDelay == 100, "success resets the back-off")
    }

    @Test("a standby's tick does nothing: no heartbeat, no liveness declarations, no engine deadlines")
    func standbyTick() {
        var core = Self.standby()
        _ = core.observe(.logTurn(Self.leaderBatches(2).map(LoggedBatch.init)), at: R.at(2))
        #expect(core.sequence == 2)
        let actions = core.tickTurn(at: R.at(60_000))
        #expect(!actions.contains { if case .publish = $0 { true } else { false } }, "no heartbeat")
        #expect(!actions.contains { if case .commit = $0 { true } else { false } }, "two nodes silent for a minute stay alive")
        #expect(core.state.nodes.values.allSatisfy { $0.alive })
    }

    @Test("follow: the next batch applies, an old one is stale, a later one is a gap")
    func follow() {
        var core = Self.standby()
        let batches = Self.leaderBatches(3)
        #expect(core.follow(LoggedBatch(batches[0])) == .applied)
        #expect(core.follow(LoggedBatch(batches[0])) == .stale)
        #expect(core.follow(LoggedBatch(batches[2])) == .gap)
        #expect(core.follow(LoggedBatch(batches[1])) == .applied)
        #expect(core.sequence == 2 && core.committedSequence == 2)
        #expect(core.state.nodes.keys.sorted() == ["ipad-1", "ipad-2"])
    }

    @Test("a logged batch is read without its events, keeps its bytes as published, and a batch whose events are not last is read whole")
    func loggedBatchWithoutEvents() throws {
        let batch = try #require(Self.leaderBatches(1).first)
        #expect(!batch.events.isEmpty, "a registration's batch has events")
        var header = batch
        header.events = []
        let bytes = WireCodec.encode(batch)
        let logged = try LoggedBatch(encoded: bytes)
        #expect(logged.batch == header && logged.encoded == bytes && logged.size == bytes.count)
        #expect(LoggedBatch(batch) == logged, "a batch held decoded is logged the same way")
        // Another encoder may write the events before the command: decoded whole, events dropped.
        var fields = try #require(ProtobufWire.parse(bytes, depth: 0))
        fields.sort { ($0.number == 7 ? 0 : 1, $0.number) < ($1.number == 7 ? 0 : 1, $1.number) }
        let reordered = ProtobufWire.serialize(fields)
        #expect(reordered != bytes)
        #expect(try LoggedBatch(encoded: reordered).batch == header)
        #expect(throws: (any Error).self) { try LoggedBatch(encoded: Array(bytes.dropLast())) }
    }

    @Test("a log turn that is neither a Replay nor a deflated one is an error that says so")
    func unreadableTurns() throws {
        let deflated = LogTurn.value(replay: try Camsync_V1_Replay.with { $0.lastSequence = 3 }.serializedBytes())
        #expect(try LoggedBatch.encodedBatches(ofTurn: deflated).isEmpty)
        for damaged in [Array(deflated.dropLast(3)), [0x78, 0x01, 0xFF], [0x0A, 0x09, 0x01]] {
            #expect {
                try LoggedBatch.encodedBatches(ofTurn: damaged)
            } throws: { error in
                (error as? LoggedBatch.UnreadableTurn)?.description.hasPrefix("an unreadable log turn: ") == true
            }
        }
    }

    @Test("where a message's trailing run of one field starts", arguments: [
        ([] as [UInt8], 7 as UInt64, 0 as Int?),                 // empty: no such field
        ([0x08, 0x01], 7, 2),                                    // field 1 only
        ([0x08, 0x01, 0x3A, 0x01, 0x00], 7, 2),                  // field 1, then field 7
        ([0x08, 0x01, 0x3A, 0x00, 0x3A, 0x00], 7, 2),            // two field 7s at the end
        ([0x3A, 0x00, 0x08, 0x01], 7, nil),                      // field 1 after field 7: not trailing
        ([0x08, 0x01, 0x3A, 0x05, 0x00], 7, nil),                // field 7's length runs past the end
        ([0x08], 7, nil),                                        // a tag without its value
        ([0x08, 0x01, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x3A, 0x00], 7, 11),  // a fixed64 before it
    ])
    func trailingFieldsStart(bytes: [UInt8], number: UInt64, expected: Int?) {
        #expect(ProtobufWire.trailingFieldsStart(number, in: bytes) == expected)
    }

    @Test("a gap in the watched log: the standby reads the whole state from etcd again, and ends up exactly there")
    func gapInWatchedLog() {
        var core = Self.standby()
        let batches = Self.leaderBatches(3)
        _ = core.observe(.logTurn([LoggedBatch(batches[0])]), at: R.at(2))
        let actions = core.observe(.logTurn([LoggedBatch(batches[2])]), at: R.at(3))
        #expect(core.role == .rebuilding)
        #expect(actions.contains(.rebuildFromLog))
        _ = core.rebuilt(snapshot: nil, batches: batches.map(LoggedBatch.init), at: R.at(4))
        #expect(core.role == .standby && core.sequence == 3)
        #expect(core.term == 7, "the term of the log it applied (the old leader stamped 7), not 0")
    }

    // MARK: Taking the lead

    @Test("a win while behind the log: the core reads the log's tail and leads only once it holds all of it")
    func winWhileBehind() throws {
        var core = Self.standby()
        let batches = Self.leaderBatches(3)
        _ = core.observe(.logTurn([LoggedBatch(batches[0])]), at: R.at(2))
        _ = core.observe(.leaseRenewed(lease: 7, validUntil: 2_000), at: R.at(3))
        let won = core.observe(.won(Self.leadership(42)), at: R.at(3))
        #expect(won == [.readLog(after: 1)])
        #expect(core.role == .catchingUp(Self.leadership(42)))
        let meanwhile = Self.notLeader(core.receiveTurn(R.frame(R.register("ipad-9")), at: R.at(4)))
        #expect(meanwhile.count == 1, "nothing is decided while catching up")
        let led = core.logRead(batches[1...].map(LoggedBatch.init), at: R.at(5))
        #expect(led.contains(.count(.role(leading: true, term: 42))))
        #expect(core.role == .leading(Self.leadership(42)) && core.sequence == 3 && core.term == 42)
    }

    @Test("the same win reported twice (the campaign's answer and the observed leader) is one win")
    func sameWinTwice() {
        var core = Self.standby()
        _ = core.observe(.leaseRenewed(lease: 7, validUntil: 2_000), at: R.at(3))
        #expect(core.observe(.won(Self.leadership(42)), at: R.at(3)) == [.readLog(after: 0)])
        #expect(core.observe(.won(Self.leadership(42)), at: R.at(4)).isEmpty, "no second read, no log line")
        _ = core.logRead([], at: R.at(5))
        #expect(core.observe(.won(Self.leadership(42)), at: R.at(6)).isEmpty)
        #expect(core.role == .leading(Self.leadership(42)))
    }

    @Test("catching up finds a log that does not continue the state: rebuild, then lead with the same win")
    func catchUpGap() {
        var core = Self.standby()
        let batches = Self.leaderBatches(3)
        _ = core.observe(.leaseRenewed(lease: 7, validUntil: 2_000), at: R.at(3))
        _ = core.observe(.won(Self.leadership(42)), at: R.at(3))
        let actions = core.logRead([LoggedBatch(batches[2])], at: R.at(4))
        #expect(actions.contains(.rebuildFromLog) && core.role == .rebuilding)
        let rebuilt = core.rebuilt(snapshot: nil, batches: batches.map(LoggedBatch.init), at: R.at(5))
        #expect(rebuilt.contains(.readLog(after: 3)))
        _ = core.logRead([], at: R.at(6))
        #expect(core.role.isLeading && core.sequence == 3)
    }

    @Test("after leading, sequences continue, a request the old leader acknowledged gets its ack again, heartbeats name the leader")
    func leadsWhereTheOldLeaderStopped() throws {
        var core = Self.standby(log: Self.leaderBatches(2))
        _ = Self.lead(&core, term: 42)
        #expect(core.role.isLeading && core.term == 42)

        // K5 across leaders: ipad-2's registration (request 102) was acknowledged by the old leader.
        let retry = core.receiveTurn(R.frame(R.register("ipad-2", requestID: 102), route: Array("ipad-2".utf8)), at: R.at(11))
        #expect(R.replies(retry) == [.ack(sequence: 2, requestID: 102, term: 42)])
        #expect(!retry.contains { if case .commit = $0 { true } else { false } })

        let fresh = core.receiveTurn(R.frame(R.register("ipad-3", requestID: 7), route: Array("ipad-3".utf8)), at: R.at(12))
        #expect(R.replies(fresh) == [.ack(sequence: 3, requestID: 7, term: 42)], "no sequence is reused")
        #expect(fresh.contains { if case .commit(let commit) = $0 { commit.entries == R.appends(fresh) && commit.leadership == Self.leadership(42) } else { false } },
                "every write is conditional on the win")

        let heartbeats = core.tickTurn(at: R.at(13)).compactMap { action -> Camsync_V1_CoordinatorHeartbeat? in
            if case .publish(_, let publication) = action, case .coordinatorHeartbeat(let body)? = publication.envelope.body { return body }
            return nil
        }
        let heartbeat = try #require(heartbeats.first)
        var expected = Self.ownAddress
        expected.term = 42
        #expect(heartbeat.term == 42 && heartbeat.coordinator == expected)
    }

    @Test("K7: every node's silence counts from when the leader begins to lead, not from before the change")
    func livenessStartsAfresh() {
        let log = Self.leaderBatches(2)
        var core = Self.standby(log: log)
        // This coordinator led once and heard ipad-1 at 0.1 s, then lost its lease …
        _ = Self.lead(&core, term: 42, at: 10)
        _ = core.receiveTurn(R.frame(.nodeHeartbeat(sender: "ipad-1", time: Instant(milliseconds: 1))), at: R.at(100))
        _ = core.observe(.leaseLost("lease expired"), at: R.at(200))
        _ = core.rebuilt(snapshot: nil, batches: log.map(LoggedBatch.init), at: R.at(201))
        // … and leads again at 50 s: nobody is silent for what straddles the change.
        _ = Self.lead(&core, term: 50, at: 50_000, leaseUntil: 100_000)
        let timeout = core.livenessTimeoutMilliseconds
        #expect(core.silentNodes(at: 50_000 + timeout).isEmpty)
        #expect(core.nextLivenessDeadline() == 50_000 + timeout + 1)
        _ = core.observe(.leaseRenewed(lease: 7, validUntil: 100_000), at: R.at(50_000 + timeout + 1))
        let late = core.tickTurn(at: R.at(50_000 + timeout + 1))
        #expect(R.appends(late).count == 2, "silent for a whole timeout under this leader: declared dead")
    }

    @Test("C8 across leaders: camera tokens keep increasing after a standby takes over")
    func fencesKeepIncreasing() throws {
        var old = R.core()
        var batches: [Camsync_V1_EventBatch] = []
        for action in Self.run(&old, Self.cameraStory(), from: 1) {
            if case .publish(EventTopic.everyBatch, let publication) = action, case .eventBatch(let batch)? = publication.envelope.body { batches.append(batch) }
        }
        let before = try #require(old.state.cameraSystems.values.first?.lastToken)
        #expect(before.value > 0, "the story granted the camera")
        var standby = Self.standby(log: batches)
        #expect(standby.state == old.state, "the standby holds exactly the leader's state")
        _ = Self.lead(&standby, term: 99, at: 500)
        _ = Self.run(&standby, [.openFullScreen(Self.a, trigger: .user), .startSession(Self.a)], from: 100)
        let after = try #require(standby.state.cameraSystems.values.first?.lastToken)
        #expect(after > before)
    }

    // MARK: Stepping down

    @Test("a commit etcd refuses: every request of the turn gets NOT_LEADER (counted), nothing is published, the core resigns and rebuilds")
    func commitRefused() {
        var core = Self.standby()
        _ = Self.lead(&core, term: 42)
        _ = core.receive(R.frame(R.register("ipad-1", requestID: 5)), at: R.at(20))
        _ = core.receive(R.frame(.snapshotRequest(sender: "ipad-1", requestID: 6)), at: R.at(20))
        let end = core.endTurn(at: R.at(21))
        guard case .commit(let commit)? = end.first(where: { if case .commit = $0 { true } else { false } }) else {
            Issue.record("no commit: \(end)"); return
        }
        #expect(commit.leadership == Self.leadership(42))
        let refusedBefore = core.counters.commandsRefused
        let failed = core.turnFailed(commit.id, StoreFailure(.notLeader, "this coordinator lost its leadership on etcd"), at: R.at(22))
        #expect(Self.notLeader(failed).count == 2, "both requests of the turn")
        #expect(R.replies(failed).allSatisfy { if case .error? = $0.body { true } else { false } }, "no ack")
        #expect(!failed.contains { if case .publish = $0 { true } else { false } })
        #expect(Self.resigns(failed) == [Self.leadership(42)])
        #expect(failed.contains(.count(.role(leading: false, term: 42))))
        #expect(core.counters.commandsRefused == refusedBefore + 2)
        #expect(core.role == .rebuilding)
        #expect(core.tick(at: R.at(23)) == [.rebuildFromLog], "the engine may hold what etcd did not take")
    }

    @Test("the lease runs out in the middle of a turn: the turn is not committed, its requests get NOT_LEADER")
    func leaseExpiresMidTurn() {
        var core = Self.standby()
        _ = Self.lead(&core, term: 42, leaseUntil: 1_000)
        _ = core.receive(R.frame(R.register("ipad-1", requestID: 5)), at: R.at(990))
        let end = core.endTurn(at: R.at(1_000))
        #expect(!end.contains { if case .commit = $0 { true } else { false } })
        #expect(Self.notLeader(end).count == 1)
        #expect(Self.resigns(end) == [Self.leadership(42)])
        #expect(core.role == .rebuilding)
    }

    @Test("a pause (SIGSTOP) past the lease: the first thing after it steps down, and the frame waiting gets NOT_LEADER")
    func pausePastTheLease() {
        var core = Self.standby()
        _ = Self.lead(&core, term: 42, leaseUntil: 2_000)
        #expect(core.nextDeadline(at: R.at(1_900)) <= 2_000, "the lease's end is a deadline")
        // The process was stopped at 1 s and resumes at 30 s, with a frame queued.
        let actions = core.receiveTurn(R.frame(R.register("ipad-1", requestID: 5)), at: R.at(30_000))
        #expect(Self.resigns(actions) == [Self.leadership(42)])
        #expect(Self.notLeader(actions).count == 1)
        #expect(!actions.contains { if case .commit = $0 { true } else { false } })
        #expect(!actions.contains { if case .publish = $0 { true } else { false } }, "no heartbeat from a deposed leader")
    }

    /// The simulator's store answers a read later than the loop's; the lease can be lost meanwhile.
    @Test("a catch-up read answered after a step-down is ignored, and the rebuild starts once it is in")
    func catchUpReadAnsweredAfterStepDown() {
        var core = Self.standby()
        _ = core.observe(.leaseRenewed(lease: 7, validUntil: 2_000), at: R.at(10))
        #expect(core.observe(.won(Self.leadership(42)), at: R.at(10)).contains(.readLog(after: 0)))
        let lost = core.observe(.leaseLost("lease expired"), at: R.at(11))
        #expect(core.role == .rebuilding)
        #expect(!lost.contains(.rebuildFromLog), "one read at a time: the catch-up read is still out")
        #expect(core.tick(at: R.at(12)).contains(.rebuildFromLog) == false)
        let late = core.logRead(Self.leaderBatches(1).map(LoggedBatch.init), at: R.at(13))
        #expect(core.role == .rebuilding && core.sequence == 0, "the late read's batches are not applied")
        #expect(!late.contains { if case .commit = $0 { true } else { false } })
        #expect(core.tick(at: R.at(14)).contains(.rebuildFromLog), "its answer frees the rebuild's read")
        _ = core.rebuilt(snapshot: nil, batches: [], at: R.at(15))
        #expect(core.role == .standby)
    }

    @Test("a lost lease steps down without resigning (etcd already took it), and the win that raced it is stale")
    func staleWinAfterStepDown() {
        var core = Self.standby()
        _ = Self.lead(&core, term: 42)
        let lost = core.observe(.leaseLost("lease expired"), at: R.at(30))
        #expect(Self.resigns(lost).isEmpty && core.role == .rebuilding)
        _ = core.rebuilt(snapshot: nil, batches: [], at: R.at(31))
        let stale = core.observe(.won(Self.leadership(42)), at: R.at(32))
        #expect(!stale.contains { if case .readLog = $0 { true } else { false } })
        #expect(core.role == .standby && core.highAvailability?.phase.pendingWin == nil)
        let newer = core.observe(.won(Self.leadership(50)), at: R.at(33))
        #expect(newer.contains(.readLog(after: 0)), "a later win is taken")
    }

    @Test("etcd shows another coordinator leading in a higher term: step down and resign")
    func anotherLeaderInAHigherTerm() {
        var core = Self.standby()
        _ = Self.lead(&core, term: 42)
        var other = Self.leaderAddress
        other.term = 43
        let actions = core.observe(.leaderObserved(other), at: R.at(40))
        #expect(Self.resigns(actions) == [Self.leadership(42)] && core.role == .rebuilding)
    }

    @Test("a lease not known to live when the catch-up ends: no lead, resign")
    func leaseUnknownAfterCatchUp() {
        var core = Self.standby()
        _ = core.observe(.leaseRenewed(lease: 8, validUntil: 2_000), at: R.at(3))
        _ = core.observe(.won(Self.leadership(42, lease: 7)), at: R.at(3))
        let actions = core.logRead([], at: R.at(4))
        #expect(!core.role.isLeading, "lease 8 says nothing about lease 7")
        #expect(Self.resigns(actions) == [Self.leadership(42)])
    }

    static let a = AppID(device: "ipad-1", bundleID: "a"), b = AppID(device: "ipad-1", bundleID: "b")

    /// Two apps on one camera, each granted it in turn.
    static func cameraStory() -> [Command] {
        let camera = CameraID(host: "ipad-1", name: "front")
        return [.registerNode(NodeRegistration(node: "ipad-1", attributes: .device(RecoveryTests.device))),
                .openFullScreen(b, trigger: .user), .configureSession(b, SessionConfiguration(camera: camera)),
                .openFullScreen(a, trigger: .user), .configureSession(a, SessionConfiguration(camera: camera)),
                .startSession(a), .openFullScreen(b, trigger: .user), .startSession(b)]
    }

    /// Sends `commands` as ipad-1, request ids from `first`, each as a whole turn, and returns every action.
    static func run(_ core: inout CoordinatorCore, _ commands: [Command], from first: UInt64) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        for (index, command) in commands.enumerated() {
            let id = first + UInt64(index)
            actions += core.receiveTurn(R.frame(.request(command, sender: "ipad-1", requestID: id)), at: R.at(Int64(id)))
        }
        return actions
    }
}
