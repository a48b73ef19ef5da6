import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// K6 without sockets: several coordinators, one leader. The node ignores lower terms, follows the
/// leader its heartbeats and NOT_LEADER replies name (resending pending requests with their ids),
/// tries the next coordinator while all are silent, and keeps its replica and fence across a failover.
@Suite struct NodeSessionLeaderTests {
    typealias H = NodeSessionHarness

    /// A node of three coordinators that joined through "a", leading in term 100.
    static func joinedThroughA(settings: NodeSettings = HA.settings()) throws -> (NodeSession, FakeCoordinator) {
        let (session, a) = try H.joined(settings: settings, coordinator: .named("a", term: 100))
        #expect(session.followed == .init(commandEndpoint: HA.commands("a"), term: 100))
        #expect(session.knownTerm == 100)
        return (session, a)
    }

    /// A user's action from a control client (request id 42), forwarded by the node.
    static func forward(_ session: inout NodeSession, at ms: Int64) throws -> Envelope {
        let command = Envelope.request(.goHome(device: H.node), sender: "ctl", requestID: 42)
        return try #require(session.receiveControl(identity: [7], frame: command.serializedBytes(), now: H.at(ms)).sent.first)
    }

    @Test("K6: --coordinator and --events take comma-separated lists; one endpoint is a list of one")
    func endpointLists() {
        let settings = H.settings(commands: "tcp://a:5555, tcp://b:5555 ,,tcp://c:5555", events: "tcp://a:5556")
        #expect(settings.coordinatorCommandEndpoints == ["tcp://a:5555", "tcp://b:5555", "tcp://c:5555"])
        #expect(settings.coordinatorEventEndpoints == ["tcp://a:5556"])
        #expect(NodeSession(settings: settings, now: H.at(0)).followed == .init(commandEndpoint: "tcp://a:5555", term: 0))
        #expect(H.settings().coordinatorCommandEndpoints == ["tcp://127.0.0.1:5555"])
    }

    enum StaleSource: String, CaseIterable, CustomTestStringConvertible {
        case batch, heartbeat, reply
        var testDescription: String { rawValue }
    }

    @Test("K6: once term 200 is seen, the deposed leader's batches, heartbeats and replies (term 100) are ignored",
          arguments: StaleSource.allCases)
    func lowerTermIgnored(source: StaleSource) throws {
        var (session, a) = try Self.joinedThroughA()
        var b = a.failedOver(to: "b", term: 200)
        _ = session.receivePublication(b.heartbeat(), now: H.at(1000))
        #expect(session.knownTerm == 200 && session.followed.commandEndpoint == HA.commands("b"))
        let sequence = session.replica.sequence
        let heard = session.lastHeardFromCoordinator

        switch source {
        case .batch:
            // Cut off from etcd, "a" still publishes a batch of its own at the next sequence.
            let stale = session.receivePublication(try a.publish(.openFullScreen(H.app, trigger: .user)), now: H.at(1100))
            #expect(stale.metrics == [.staleTermIgnored])
            #expect(stale.requests.isEmpty && stale.history.isEmpty)
            #expect(session.replica.sequence == sequence && session.replica.phase == .synced, "not applied")
            #expect(session.lastHeardFromCoordinator == heard, "a deposed leader is not a live coordinator")
            // The leader's own batch at that sequence is the one the replica takes.
            _ = session.receivePublication(try b.publish(.openFullScreen(H.app, trigger: .user)), now: H.at(1200))
            #expect(session.replica.sequence == sequence + 1)
            #expect(session.replica.state == b.engine.state && session.replica.term == 200)
        case .heartbeat:
            // It would say "behind: resync" and "follow a" if it were believed.
            let stale = session.receivePublication(a.heartbeat(lastSequence: a.sequence + 5), now: H.at(1100))
            #expect(stale.metrics == [.staleTermIgnored])
            #expect(stale.reconnects.isEmpty && stale.requests.isEmpty)
            #expect(session.followed == .init(commandEndpoint: HA.commands("b"), term: 200))
            #expect(session.replica.phase == .synced && session.lastHeardFromCoordinator == heard)
        case .reply:
            let forwarded = try Self.forward(&session, at: 1100)
            let stale = session.receiveReply(try a.answer(forwarded).reply, now: H.at(1200))
            #expect(stale.metrics == [.staleTermIgnored])
            #expect(stale.controlReplies.isEmpty, "not relayed")
            #expect(session.pending[forwarded.requestID] != nil, "still pending: the leader has not answered")
            let answered = session.receiveReply(try b.answer(forwarded).reply, now: H.at(1300))
            #expect(answered.controlReplies.map(\.envelope.requestID) == [42])
            #expect(session.pending[forwarded.requestID] == nil)
        }
    }

    @Test("K6: a heartbeat naming a new leader moves the DEALER to it and resends pending requests with their ids")
    func heartbeatFromNewLeaderSwitches() throws {
        var (session, a) = try Self.joinedThroughA()
        let forwarded = try Self.forward(&session, at: 1000)
        var b = a.failedOver(to: "b", term: 200)   // "a" dies before answering

        let switched = session.receivePublication(b.heartbeat(), now: H.at(1200))
        #expect(switched.reconnectEndpoints == [HA.commands("b")])
        #expect(switched.reconnects == [false], "its connection to every coordinator is open already")
        let reconnect = try #require(switched.firstIndex { if case .follow = $0 { true } else { false } })
        let resent = Array(switched[reconnect...]).requests
        #expect(resent.first == forwarded, "the same request, same id, byte for byte (K5)")
        #expect(!switched[..<reconnect].contains { if case .send = $0 { true } else { false } }, "nothing left for \"a\"")
        #expect(switched.metrics.contains(.leaderFollowed))
        #expect(session.followed == .init(commandEndpoint: HA.commands("b"), term: 200))
        #expect(switched.registrations.isEmpty && switched.snapshotRequests.isEmpty, "a leader change is not a restart (K7)")
        #expect(session.knownTerm == 200)

        let answered = session.receiveReply(try b.answer(forwarded).reply, now: H.at(1300))
        #expect(answered.controlReplies.map(\.envelope.requestID) == [42])
        #expect(session.receivePublication(b.heartbeat(), now: H.at(1700)).reconnects.isEmpty, "already following it")
        // A single coordinator's heartbeats name nobody: nothing to follow.
        #expect(session.receivePublication(FakeCoordinator(term: 300).heartbeat(), now: H.at(1800)).reconnects.isEmpty)
    }

    enum NamedLeader: String, CaseIterable, CustomTestStringConvertible {
        /// "b", in a term at least as high as any seen: followed at once.
        case current
        /// "c", in a term lower than one seen (a standby's stale view): not followed.
        case stale
        var testDescription: String { rawValue }
    }

    @Test("K6: NOT_LEADER naming a leader → follow it and resend at once, unless its term is lower than one seen",
          arguments: NamedLeader.allCases)
    func notLeaderWithLeader(named: NamedLeader) throws {
        var (session, a) = try Self.joinedThroughA()
        let forwarded = try Self.forward(&session, at: 1000)
        var b = a.failedOver(to: "b", term: 200)
        let leader = named == .current ? b.address : a.failedOver(to: "c", term: 50).address

        let refused = session.receiveReply(a.notLeader(forwarded, leader: leader, reason: "lost its lease"), now: H.at(1100))
        #expect(refused.controlReplies.isEmpty, "NOT_LEADER is never relayed to the client")
        #expect(session.pending[forwarded.requestID]?.notLeader == "not the leader (lost its lease)")
        switch named {
        case .current:
            #expect(refused.reconnectEndpoints == [HA.commands("b")])
            #expect(refused.requests == [forwarded], "resent at once with its id")
            #expect(session.followed == .init(commandEndpoint: HA.commands("b"), term: 200))
            let answered = session.receiveReply(try b.answer(forwarded).reply, now: H.at(1200))
            #expect(answered.controlReplies.map(\.envelope.requestID) == [42])
            #expect(session.knownTerm == 200, "the leader's own reply carries its term")
        case .stale:
            #expect(refused.reconnects.isEmpty && refused.requests.isEmpty)
            #expect(session.followed.commandEndpoint == HA.commands("a"))
            // Left to the normal retry, with its id.
            #expect(session.tick(now: H.at(1999)).requests.isEmpty)
            #expect(session.tick(now: H.at(2000)).requests == [forwarded])
        }
    }

    @Test("K6: NOT_LEADER without a leader → retried with its id each interval, relayed only on giving up, with why")
    func notLeaderWithoutLeaderRetriesThenSaysWhy() throws {
        var (session, a) = try Self.joinedThroughA(settings: HA.settings(requestRetryMilliseconds: 100, requestAttempts: 3))
        let forwarded = try Self.forward(&session, at: 1000)
        for t in [Int64(1000), 1100, 1200] {
            if t > 1000 {
                let retry = session.tick(now: H.at(t))
                #expect(retry.requests == [forwarded], "retried with its id at \(t)")
                #expect(retry.controlReplies.isEmpty)
            }
            let refused = session.receiveReply(a.notLeader(forwarded, leader: nil, reason: "etcd has no quorum"),
                                               now: H.at(t + 10))
            #expect(refused.controlReplies.isEmpty && refused.requests.isEmpty && refused.reconnects.isEmpty, "at \(t)")
            #expect(session.pending[forwarded.requestID] != nil)
        }
        let gaveUp = session.tick(now: H.at(1300))
        #expect(gaveUp.requests.isEmpty)
        let reply = try #require(gaveUp.controlReplies.first)
        #expect(reply.identity == [7] && reply.envelope.requestID == 42)
        guard case .error(let error)? = reply.envelope.body else { Issue.record("not an error"); return }
        #expect(error.code == .overloaded)
        #expect(error.message.contains("etcd has no quorum"), "says why: \(error.message)")
        #expect(error.message.contains("3 attempts"))
        #expect(session.pending[forwarded.requestID] == nil)
    }

    @Test("K6: while every coordinator is silent, each reconnect moves the DEALER to the next endpoint of the list",
          arguments: [["a", "b", "c"], ["a"]])
    func rotatesWhileSilent(names: [String]) throws {
        var (session, a) = try Self.joinedThroughA(settings: HA.settings(names))   // last heard at 300
        var endpoints: [String] = []
        for t in stride(from: Int64(350), through: 20000, by: 50) {
            let actions = session.tick(now: H.at(t))
            #expect(actions.reconnects.allSatisfy { $0 }, "silence reopens the SUB too")
            endpoints += actions.reconnectEndpoints
        }
        // Reconnects at 2350, 3350, 5350, 9350, 17350 (the K1 back-off).
        let expected = names.count == 1 ? Array(repeating: "a", count: 5) : ["b", "c", "a", "b", "c"]
        #expect(endpoints == expected.map(HA.commands))

        // "b" leads now: its first heartbeat brings the node back, and to "b" before anything is sent.
        let b = a.failedOver(to: "b", term: 200)
        let back = session.receivePublication(b.heartbeat(), now: H.at(20000))
        #expect(session.isCoordinatorReachable)
        #expect(session.followed == .init(commandEndpoint: HA.commands("b"), term: 200))
        #expect(back.reconnectEndpoints == [HA.commands("b")])
        #expect(back.firstIndex { if case .follow = $0 { true } else { false } }
                    ?? .max < back.firstIndex { if case .send = $0 { true } else { false } } ?? .max)
        #expect(back.registrations.isEmpty && back.snapshotRequests.isEmpty,
                "K7: the replica continues the new leader's sequence: no rejoin, no snapshot")
        #expect(session.registered && session.replica.phase == .synced)
    }

    @Test("K6: a NOT_LEADER reply is not the coordinator being heard: silence, and the rotation, go on")
    func notLeaderIsNotLiveness() throws {
        var (session, a) = try Self.joinedThroughA()
        let forwarded = try Self.forward(&session, at: 1000)
        for t in stride(from: Int64(1000), through: 2400, by: 100) {
            _ = session.receiveReply(a.notLeader(forwarded, leader: nil, reason: "no leader yet"), now: H.at(t))
            _ = session.tick(now: H.at(t))
        }
        #expect(session.coordinatorSilent, "only a standby answers: the leader is gone")
        #expect(session.followed.commandEndpoint == HA.commands("b"), "and the next coordinator is tried")
    }

    @Test("K6: the new leader's batches continue the replica under its much larger term; the fence keeps its tokens (C8)")
    func newLeaderContinuesReplicaAndFence() throws {
        var (session, a) = try Self.joinedThroughA()
        let system = CameraSystemID.builtIn(device: H.node)
        let camera = CameraID(host: H.node, name: "front")
        for command: Command in [.openFullScreen(H.app, trigger: .user),
                                 .configureSession(H.app, SessionConfiguration(camera: camera)), .startSession(H.app)] {
            _ = session.receivePublication(try a.publish(command), now: H.at(400))
        }
        let first = try #require(session.fence.capturing[system]?.token, "granted under term 100")
        let sequence = session.replica.sequence

        // etcd elects "b": its term is its leader key's create revision, far above "a"'s.
        var b = a.failedOver(to: "b", term: 7_340_123)
        let failover = session.receivePublication(b.heartbeat(), now: H.at(1000))
        #expect(failover.snapshotRequests.isEmpty, "the sequence goes on: no resync")
        #expect(session.replica.phase == .synced && session.replica.sequence == sequence)

        var actions: [NodeAction] = []
        for command: Command in [.stopSession(H.app), .startSession(H.app)] {
            actions += session.receivePublication(try b.publish(command), now: H.at(1100))
        }
        #expect(session.replica.sequence == sequence + 2, "sequence numbers continue, none reused")
        #expect(session.replica.term == 7_340_123)
        #expect(session.replica.state == b.engine.state)
        let second = try #require(session.fence.capturing[system]?.token)
        #expect(second > first, "tokens live in the replicated state and keep increasing")
        #expect(session.fence.highest[system] == second)
        #expect(!actions.metrics.contains(.fenceRefused) && actions.snapshotRequests.isEmpty)

        // What "a" granted under its old term, replayed late, is both stale and fenced.
        #expect(session.receivePublication(try a.publish(.stopSession(H.app)), now: H.at(1200)).metrics == [.staleTermIgnored])
        #expect(session.fence.capturing[system]?.token == second)
    }

    @Test("K7: a higher term first seen on a batch: no re-registration, and the batch applies")
    func higherTermBatchContinues() throws {
        var (session, a) = try Self.joinedThroughA()
        var b = a.failedOver(to: "b", term: 200)
        let actions = session.receivePublication(try b.publish(.openFullScreen(H.app, trigger: .user)), now: H.at(1000))
        #expect(session.knownTerm == 200)
        #expect(actions.registrations.isEmpty && actions.snapshotRequests.isEmpty)
        #expect(session.registered)
        #expect(session.replica.sequence == b.sequence && session.replica.state == b.engine.state)
    }
}
