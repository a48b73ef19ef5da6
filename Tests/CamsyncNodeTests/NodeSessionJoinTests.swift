import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// K2 without sockets: joining, resyncing after lost batches, rejoining a restarted coordinator
/// or after being declared dead. Time is injected; assertions are on actions and the session's state.
@Suite struct NodeSessionJoinTests {
    typealias H = NodeSessionHarness

    @Test("join: register at start, snapshot once the subscription is live, synced and live after the reply")
    func join() throws {
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        var coordinator = FakeCoordinator()

        let start = session.start(now: H.at(0))
        #expect(start.history == [.start(node: H.node, at: H.at(0).wall)])
        #expect(start.requests.count == 1, "only the registration: the SUB socket has not proven live yet")
        let register = try #require(start.registrations.first)
        #expect(register == NodeRegistration(node: H.node, attributes: .device(H.device)), "a first registration asserts nothing")
        #expect(session.snapshotWanted && !session.snapshotRequested)
        #expect(!session.registered && session.replica.phase == .awaitingSnapshot)

        // The first heartbeat proves the subscription live: now the snapshot is asked for (slow joiner).
        let live = session.receivePublication(coordinator.heartbeat(), now: H.at(100))
        let snapshotRequest = try #require(live.snapshotRequests.first)
        #expect(live.requests.count == 1)
        #expect(session.subscriptionLive && session.snapshotRequested && !session.snapshotWanted)
        #expect(session.knownTerm == 1, "the first term seen is adopted without rejoining")

        // The registration's batch arrives before the snapshot: buffered, not applied.
        let answer = try coordinator.answer(start.requests[0])
        #expect(session.receivePublication(try #require(answer.publication), now: H.at(150)).requests.isEmpty)
        #expect(session.replica.phase == .awaitingSnapshot)

        _ = session.receiveReply(answer.reply, now: H.at(200))
        #expect(session.registered)

        _ = session.receiveReply(try coordinator.answer(snapshotRequest).reply, now: H.at(300))
        #expect(session.replica.phase == .synced)
        #expect(session.replica.sequence == 1)
        #expect(session.replica.state.nodes[H.node]?.alive == true)
        #expect(session.pending.isEmpty && !session.snapshotRequested)

        // Live: the next batch applies in order and its app-facing events are recorded.
        let opened = session.receivePublication(try coordinator.publish(.openFullScreen(H.app, trigger: .user)), now: H.at(400))
        #expect(session.replica.sequence == 2)
        #expect(session.replica.state == coordinator.engine.state)
        #expect(session.assertions.map(\.bundleID) == [H.app.bundleID], "K2: what the node runs is remembered")
        #expect(opened.requests.isEmpty)
        let status = session.status(requestID: 7, afterSequence: 0)
        guard case .nodeStatus(let report)? = status.body else { Issue.record("not a node status"); return }
        #expect(report.registered && report.synced && report.coordinatorReachable && report.sequence == 2)
        #expect(status.requestID == 7)
    }

    /// A snapshot request refused (a leader serving its turn's share of snapshots during a mass
    /// rejoin answers OVERLOADED) is asked again at the next heartbeat; with the planted bug that drops
    /// the refusal, the node stays unsynced.
    @Test("a refused snapshot request is asked again at the next heartbeat", arguments: [false, true])
    func refusedSnapshotIsAskedAgain(planted: Bool) throws {
        var settings = H.settings()
        if planted { settings.plantedBug = .dropSnapshotError }
        var session = NodeSession(settings: settings, now: H.at(0))
        let coordinator = FakeCoordinator()
        _ = session.start(now: H.at(0))
        let request = try #require(session.receivePublication(coordinator.heartbeat(), now: H.at(100)).snapshotRequests.first)
        let refusal = Envelope.error(Camsync_V1_Error(code: .overloaded, message: "busy"), requestID: request.requestID,
                                     term: coordinator.term)
        _ = session.receiveReply([refusal.serializedBytes()], now: H.at(150))
        #expect(!session.snapshotRequested)
        let next = session.receivePublication(coordinator.heartbeat(), now: H.at(600))
        if planted {
            #expect(next.snapshotRequests.isEmpty && session.replica.phase == .awaitingSnapshot, "the planted bug drops the refusal")
        } else {
            #expect(next.snapshotRequests.count == 1, "asked again: \(next)")
            #expect(session.snapshotRequested)
        }
    }

    enum Loss: String, CaseIterable, CustomTestStringConvertible {
        /// The next batch is dropped; the one after it shows the gap.
        case batchAfterGap
        /// The batch is dropped; the coordinator's heartbeat says it published it.
        case heartbeatAhead
        var testDescription: String { rawValue }
    }

    /// A gap is filled from the log (a replay after the replica's sequence), live batches held
    /// meanwhile; only a log that cannot fill it (COMPACTED) costs a snapshot.
    @Test("a lost batch means a replay of the log, then the replica catches up, held batches included", arguments: Loss.allCases)
    func gapReplays(loss: Loss) throws {
        var (session, coordinator) = try H.joined()
        let synced = session.replica.sequence
        _ = try coordinator.publish(.openFullScreen(H.app, trigger: .user))   // lost (PUB high-water mark)
        let noticed: [NodeAction]
        switch loss {
        case .batchAfterGap:
            let next = try coordinator.publish(.sendToBackground(H.app, cause: .homeGesture))
            noticed = session.receivePublication(next, now: H.at(1000))
        case .heartbeatAhead:
            noticed = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
        }
        #expect(session.replica.sequence == synced)
        #expect(session.replica.phase == .synced, "the replica stays: no snapshot")
        #expect(noticed.snapshotRequests.isEmpty)
        let request = try #require(noticed.requests.first { if case .replayRequest? = $0.body { true } else { false } })
        guard case .replayRequest(let body)? = request.body else { return }
        #expect(body.afterSequence == synced)
        #expect(noticed.requests.count == 1, "no re-registration: only the replica is behind")
        // A batch published while the replay is under way is held, then applied after it.
        let live = session.receivePublication(try coordinator.publish(.openFullScreen(H.app, trigger: .user)), now: H.at(1050))
        #expect(live.requests.isEmpty && session.replica.sequence == synced)

        let replayed = session.receiveReply(try coordinator.answer(request).reply, now: H.at(1100))
        #expect(replayed.snapshotRequests.isEmpty && replayed.registrations.isEmpty)
        #expect(session.replica.phase == .synced)
        #expect(session.replica.sequence == coordinator.sequence)
        #expect(session.replica.state == coordinator.engine.state)
        #expect(session.registered)
    }

    @Test("a gap the log cannot fill (COMPACTED) → a snapshot")
    func compactedGapSnapshots() throws {
        var (session, coordinator) = try H.joined()
        _ = try coordinator.publish(.openFullScreen(H.app, trigger: .user))   // lost
        coordinator.compacted = true
        let noticed = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
        let replay = try #require(noticed.requests.first)
        let refused = session.receiveReply(try coordinator.answer(replay).reply, now: H.at(1100))
        let snapshot = try #require(refused.snapshotRequests.first, "COMPACTED: only a snapshot helps")
        _ = session.receiveReply(try coordinator.answer(snapshot).reply, now: H.at(1200))
        #expect(session.replica.phase == .synced && session.replica.state == coordinator.engine.state)
        #expect(session.registered)
    }

    enum TermSource: String, CaseIterable, CustomTestStringConvertible {
        case heartbeat, reply
        var testDescription: String { rawValue }
    }

    @Test("K7: a new coordinator term keeps the registration and the replica; a request in flight is answered",
          arguments: TermSource.allCases)
    func newTermCarriesOver(source: TermSource) throws {
        var (session, coordinator) = try H.joined(openApps: [H.app])
        let sequence = session.replica.sequence
        coordinator.term = 2   // the coordinator restarted from its journal, or another one leads

        let actions: [NodeAction]
        switch source {
        case .heartbeat:
            actions = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
        case .reply:
            // A user's action in flight across the change is answered under the new term.
            let command = Envelope.request(.goHome(device: H.node), sender: "ctl", requestID: 5)
            let forwarded = try #require(session.receiveControl(identity: [1], frame: command.serializedBytes(),
                                                                now: H.at(900)).sent.first)
            actions = session.receiveReply(try coordinator.answer(forwarded).reply, now: H.at(1000))
            #expect(actions.controlReplies.map(\.envelope.requestID) == [5], "the answer still reaches the client")
        }
        #expect(session.knownTerm == 2)
        #expect(session.registered, "K7: still registered")
        #expect(actions.registrations.isEmpty, "K7: no re-registration")
        #expect(actions.snapshotRequests.isEmpty, "the new coordinator continues the sequence: no resync")
        #expect(actions.contains { if case .count(.termChanged) = $0 { true } else { false } })
        #expect(session.replica.phase == .synced && session.replica.sequence == sequence)
        #expect(session.pending.values.filter(\.isRegister).isEmpty)
    }

    @Test("K7: a new coordinator that lost its journal (its heartbeat behind the replica) → snapshot, which shows this node unknown → rejoin")
    func newTermBehindTheReplica() throws {
        var (session, _) = try H.joined(openApps: [H.app])
        #expect(session.replica.sequence > 0)
        var fresh = FakeCoordinator()   // --durability off: an empty state from sequence 0
        fresh.term = 2
        let heard = session.receivePublication(fresh.heartbeat(), now: H.at(1000))
        #expect(heard.registrations.isEmpty)
        let request = try #require(heard.snapshotRequests.first, "a replica ahead of the coordinator resyncs")
        let snapshot = session.receiveReply(try fresh.answer(request).reply, now: H.at(1010))
        let registration = try #require(snapshot.registrations.first, "unknown to the new coordinator: rejoin (K2)")
        #expect(registration.assertions.map(\.bundleID) == [H.app.bundleID], "re-asserting what it ran")
    }

    enum DeathNotice: String, CaseIterable, CustomTestStringConvertible {
        /// The batch declaring this node dead arrives.
        case batch
        /// The node missed it (a partition) and the log no longer holds it; a snapshot shows it is not alive.
        case snapshot
        var testDescription: String { rawValue }
    }

    @Test("K2: declared dead → rejoin re-asserting what the node ran, then a fresh snapshot",
          arguments: DeathNotice.allCases)
    func declaredDeadRejoins(notice: DeathNotice) throws {
        var (session, coordinator) = try H.joined(openApps: [H.app])
        let expected = AppAssertion(bundleID: H.app.bundleID, scene: .fullScreen)
        #expect(session.assertions == [expected])

        let actions: [NodeAction]
        switch notice {
        case .batch:
            actions = session.receivePublication(try coordinator.publish(.declareNodeDead(H.node)), now: H.at(1000))
        case .snapshot:
            _ = try coordinator.publish(.declareNodeDead(H.node))   // lost, and compacted away
            coordinator.compacted = true
            let noticed = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
            let replay = try #require(noticed.requests.first)
            let refused = session.receiveReply(try coordinator.answer(replay).reply, now: H.at(1050))
            let request = try #require(refused.snapshotRequests.first)
            actions = session.receiveReply(try coordinator.answer(request).reply, now: H.at(1100))
            #expect(session.replica.state.nodes[H.node]?.alive == false)
        }
        #expect(!session.registered)
        #expect(actions.registrations.map(\.assertions) == [[expected]])
        #expect(session.assertions == [expected], "what it ran is kept while it is not alive")
        let snapshotRequest = try #require(actions.snapshotRequests.first, "rejoining resyncs the replica")
        #expect(session.replica.phase == .awaitingSnapshot)

        // The coordinator takes the node back with its apps; the snapshot shows it alive again.
        let register = try #require(actions.sent.first { $0.registration != nil })
        let answer = try coordinator.answer(register)
        _ = session.receiveReply(answer.reply, now: H.at(1200))
        let resynced = session.receiveReply(try coordinator.answer(snapshotRequest).reply, now: H.at(1300))
        #expect(resynced.registrations.isEmpty, "alive again: no further rejoin")
        #expect(session.registered && session.replica.phase == .synced)
        #expect(session.replica.state.nodes[H.node]?.alive == true)
        #expect(session.replica.state.apps[H.app]?.scene == .fullScreen)
        #expect(session.assertions == [expected])
    }

    /// A mass rejoin: the coordinator admits a bounded number of registrations a turn and answers the
    /// rest OVERLOADED. The registration is asked again, with its id, after a back-off between half an
    /// interval and 1½ intervals (jitter: another node of the fleet comes back at another time).
    @Test("a registration answered OVERLOADED is sent again with its id after a jittered back-off")
    func overloadedRegistrationBacksOff() throws {
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        let register = try #require(session.start(now: H.at(0)).requests.first)
        let busy = Envelope.error(Camsync_V1_Error(code: .overloaded, message: "busy"), requestID: register.requestID, term: 1)
        _ = session.receiveReply([busy.serializedBytes()], now: H.at(10))
        let interval = session.settings.heartbeatIntervalMilliseconds
        var resentAt: Int64?
        for t in stride(from: Int64(11), through: 10 + 2 * interval, by: 1) {
            if session.tick(now: H.at(t)).requests.contains(where: { $0.requestID == register.requestID }) {
                resentAt = t
                break
            }
        }
        let waited = try #require(resentAt, "never sent again") - 10
        #expect(waited >= interval / 2 && waited <= interval * 3 / 2, "sent again after \(waited) ms")
        #expect(!session.registered)
        let backoffs = Set((1...20).map { n in
            NodeSession(settings: H.settings(NodeRegistration(node: NodeID("ipad-\(n)"), attributes: .device(H.device))),
                        now: H.at(0)).registrationBackoff(attempt: 1)
        })
        #expect(backoffs.count > 10, "nodes back off for different times: \(backoffs.sorted())")
    }
}
