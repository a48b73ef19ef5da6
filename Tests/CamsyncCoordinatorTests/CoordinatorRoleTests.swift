import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator

/// SPEC K6 in the core, without etcd or sockets: a standby decides nothing and names the leader; it
/// follows the leader's log through the engine (retry window included); once it leads, sequences
/// continue, the retry window answers, and heartbeats name it.
@Suite("CoordinatorCore roles: standby, follow, becomeLeader")
struct CoordinatorRoleTests {
    typealias R = CoordinatorReceiveTests

    static let leaderAddress: Camsync_V1_CoordinatorAddress = .with {
        $0.name = "c1"; $0.commandEndpoint = "tcp://10.0.0.1:5555"; $0.eventEndpoint = "tcp://10.0.0.1:5556"; $0.term = 41
    }
    static let ownAddress: Camsync_V1_CoordinatorAddress = .with {
        $0.name = "c2"; $0.commandEndpoint = "tcp://10.0.0.2:5555"; $0.eventEndpoint = "tcp://10.0.0.2:5556"
    }

    static func standby() -> CoordinatorCore {
        var core = R.core()
        core.becomeStandby(reason: "a standby", leader: leaderAddress, address: ownAddress)
        return core
    }

    /// The batches a leader publishes for `count` registrations (what its log holds).
    static func leaderBatches(_ count: Int) -> [Camsync_V1_EventBatch] {
        var leader = R.core()
        var batches: [Camsync_V1_EventBatch] = []
        for index in 1...count {
            let node = NodeID("ipad-\(index)")
            for case .publish(_, let envelope) in leader.receive(R.frame(R.register(node, requestID: UInt64(100 + index)),
                                                                         route: Array(node.rawValue.utf8)), at: R.at(Int64(index))) {
                if case .eventBatch(let batch)? = envelope.body { batches.append(batch) }
            }
        }
        return batches
    }

    @Test("a standby answers commands, snapshot and replay requests with NOT_LEADER naming the leader, and changes nothing",
          arguments: [
              R.register("ipad-1", requestID: 5),
              Envelope.snapshotRequest(sender: "ipad-1", requestID: 5),
              Envelope(sender: "ipad-1", requestID: 5, body: .replayRequest(.with { $0.afterSequence = 0 })),
          ])
    func standbyRefuses(_ request: Envelope) throws {
        var core = Self.standby()
        let actions = core.receive(R.frame(request), at: R.at(1))
        let reply = try #require(R.replies(actions).first)
        guard case .error(let error)? = reply.body else { Issue.record("not an error: \(reply)"); return }
        #expect(error.code == .notLeader)
        #expect(error.leader == Self.leaderAddress)
        #expect(error.message.contains("c1") && error.message.contains("tcp://10.0.0.1:5555"))
        #expect(reply.requestID == 5)
        #expect(!actions.contains { if case .append = $0 { true } else { false } })
        #expect(!actions.contains { if case .publish = $0 { true } else { false } })
        #expect(core.sequence == 0 && core.state.nodes.isEmpty)
    }

    @Test("a standby that knows no leader says why, and a node heartbeat gets no answer")
    func standbyWithoutLeader() throws {
        var core = R.core()
        core.becomeStandby(reason: "etcd has no quorum")
        let reply = try #require(R.replies(core.receive(R.frame(R.register("ipad-1")), at: R.at(1))).first)
        guard case .error(let error)? = reply.body else { Issue.record("not an error"); return }
        #expect(error.code == .notLeader && !error.hasLeader)
        #expect(error.message.contains("etcd has no quorum"))
        let heartbeat = Envelope.nodeHeartbeat(sender: "ipad-1", time: Instant(milliseconds: 1))
        #expect(core.receive(R.frame(heartbeat), at: R.at(2)).isEmpty)
    }

    @Test("a standby's tick does nothing: no heartbeat, no liveness declarations, no engine deadlines")
    func standbyTick() {
        var core = Self.standby()
        for batch in Self.leaderBatches(2) { #expect(core.follow(batch) == .applied) }
        #expect(core.tick(at: R.at(60_000)).isEmpty, "two alive nodes silent for a minute: a leader would declare them dead")
        #expect(core.state.nodes.values.allSatisfy { $0.alive })
    }

    @Test("follow: the next batch applies, an old one is stale, a later one is a gap")
    func follow() {
        var core = Self.standby()
        let batches = Self.leaderBatches(3)
        #expect(core.follow(batches[0]) == .applied)
        #expect(core.follow(batches[0]) == .stale)
        #expect(core.follow(batches[2]) == .gap)
        #expect(core.follow(batches[1]) == .applied)
        #expect(core.sequence == 2 && core.committedSequence == 2)
        #expect(core.state.nodes.keys.sorted() == ["ipad-1", "ipad-2"])
    }

    @Test("after leading, sequences continue, a request the old leader acknowledged gets its ack again, heartbeats name the leader")
    func becomeLeader() throws {
        var core = Self.standby()
        let batches = Self.leaderBatches(2)
        for batch in batches { _ = core.follow(batch) }
        let log = core.becomeLeader(term: 42, at: R.at(10))
        #expect(log.contains { if case .log = $0 { true } else { false } })
        #expect(log.contains(.count(.role(leading: true, term: 42))), "the shell exports the new role and term")
        #expect(core.role == .leader && core.term == 42)

        // K5 across leaders: ipad-2's registration (request 102) was acknowledged by the old leader.
        let retry = core.receive(R.frame(R.register("ipad-2", requestID: 102), route: Array("ipad-2".utf8)), at: R.at(11))
        #expect(R.replies(retry) == [.ack(sequence: 2, requestID: 102, term: 42)])
        #expect(!retry.contains { if case .append = $0 { true } else { false } })

        let fresh = core.receive(R.frame(R.register("ipad-3", requestID: 7), route: Array("ipad-3".utf8)), at: R.at(12))
        #expect(R.replies(fresh) == [.ack(sequence: 3, requestID: 7, term: 42)], "no sequence is reused")

        let heartbeats = core.tick(at: R.at(13)).compactMap { action -> Camsync_V1_CoordinatorHeartbeat? in
            if case .publish(_, let envelope) = action, case .coordinatorHeartbeat(let body)? = envelope.body { return body }
            return nil
        }
        let heartbeat = try #require(heartbeats.first)
        var expected = Self.ownAddress
        expected.term = 42
        #expect(heartbeat.term == 42 && heartbeat.coordinator == expected)
    }

    @Test("C8 across leaders: camera tokens keep increasing after a standby takes over")
    func fencesKeepIncreasing() throws {
        var old = R.core()
        var batches: [Camsync_V1_EventBatch] = []
        for action in Self.run(&old, Self.cameraStory(), from: 1) {
            if case .publish(_, let envelope) = action, case .eventBatch(let batch)? = envelope.body { batches.append(batch) }
        }
        let before = try #require(old.state.cameraSystems.values.first?.lastToken)
        #expect(before.value > 0, "the story granted the camera")
        var standby = Self.standby()
        for batch in batches { #expect(standby.follow(batch) == .applied) }
        #expect(standby.state == old.state, "the standby holds exactly the leader's state")
        _ = standby.becomeLeader(term: 99, at: R.at(500))
        _ = Self.run(&standby, [.openFullScreen(Self.a, trigger: .user), .startSession(Self.a)], from: 100)
        let after = try #require(standby.state.cameraSystems.values.first?.lastToken)
        #expect(after > before)
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

    /// Sends `commands` as ipad-1, request ids from `first`, and returns every action.
    static func run(_ core: inout CoordinatorCore, _ commands: [Command], from first: UInt64) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        for (index, command) in commands.enumerated() {
            let id = first + UInt64(index)
            actions += core.receive(R.frame(.request(command, sender: "ipad-1", requestID: id)), at: R.at(Int64(id)))
        }
        return actions
    }
}
