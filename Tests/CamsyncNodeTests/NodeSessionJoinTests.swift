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

    enum Loss: String, CaseIterable, CustomTestStringConvertible {
        /// The next batch is dropped; the one after it shows the gap.
        case batchAfterGap
        /// The batch is dropped; the coordinator's heartbeat says it published it.
        case heartbeatAhead
        var testDescription: String { rawValue }
    }

    /// The node keeps a replica, so it snapshots again (docs/PROTOCOL.md: only replica-less clients
    /// ask for a replay).
    @Test("a lost batch means a new snapshot, then the replica catches up", arguments: Loss.allCases)
    func gapResnapshots(loss: Loss) throws {
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
        #expect(session.replica.phase == .awaitingSnapshot)
        let request = try #require(noticed.snapshotRequests.first)
        #expect(noticed.requests.count == 1, "no re-registration: only the replica is behind")
        #expect(session.registered)

        _ = session.receiveReply(try coordinator.answer(request).reply, now: H.at(1100))
        #expect(session.replica.phase == .synced)
        #expect(session.replica.sequence == coordinator.sequence)
        #expect(session.replica.state == coordinator.engine.state)
    }

    enum TermSource: String, CaseIterable, CustomTestStringConvertible {
        case heartbeat, reply
        var testDescription: String { rawValue }
    }

    @Test("K2: a new coordinator term means re-registering with the node's assertions, keeping the replica",
          arguments: TermSource.allCases)
    func newTermReregisters(source: TermSource) throws {
        var (session, coordinator) = try H.joined(openApps: [H.app])
        let sequence = session.replica.sequence
        coordinator.term = 2   // the coordinator restarted from its journal

        let actions: [NodeAction]
        switch source {
        case .heartbeat:
            actions = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
        case .reply:
            // A user's action in flight across the restart is answered under the new term.
            let command = Envelope.request(.goHome(device: H.node), sender: "ctl", requestID: 5)
            let forwarded = try #require(session.receiveControl(identity: [1], frame: command.serializedBytes(),
                                                                now: H.at(900)).sent.first)
            actions = session.receiveReply(try coordinator.answer(forwarded).reply, now: H.at(1000))
            #expect(actions.controlReplies.map(\.envelope.requestID) == [5], "the answer still reaches the client")
        }
        #expect(session.knownTerm == 2)
        #expect(!session.registered)
        let registration = try #require(actions.registrations.first)
        #expect(actions.registrations.count == 1)
        #expect(registration.assertions.map(\.bundleID) == [H.app.bundleID])
        #expect(registration.assertions.first?.scene == .fullScreen)
        #expect(actions.sent.first { $0.registration != nil }?.term == 2, "the request carries the new term")
        #expect(actions.snapshotRequests.isEmpty, "the journal kept the sequence: no resync")
        #expect(session.replica.phase == .synced && session.replica.sequence == sequence)
        #expect(session.pending.values.filter(\.isRegister).count == 1)
    }

    enum DeathNotice: String, CaseIterable, CustomTestStringConvertible {
        /// The batch declaring this node dead arrives.
        case batch
        /// The node missed it (a partition); a later snapshot shows it is not alive.
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
            _ = try coordinator.publish(.declareNodeDead(H.node))   // lost
            let noticed = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
            let request = try #require(noticed.snapshotRequests.first)
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
}
