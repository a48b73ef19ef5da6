import CamsyncCoordinator
import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode
import CamsyncCoordinatorCore

/// The node's protocol logic against the coordinator's, both real, without sockets: joining (K2,
/// Clone pattern) and a user's command round trip (K5) agree with what `CoordinatorCore` decides,
/// not with a stand-in's idea of it.
@Suite struct NodeSessionCoreTests {
    typealias H = NodeSessionHarness

    @Test("K2: the node registers, snapshots once its SUB is live, and its replica is the coordinator's state")
    func joinsThroughTheCore() throws {
        var link = CoordinatorCoreLink(term: 3)
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        let actions = link.exchange(&session, session.start(now: H.at(0)), at: 0)

        #expect(actions.registrations.map(\.node) == [H.node])
        #expect(actions.snapshotRequests.count == 1, "one snapshot, asked after the first publication")
        #expect(session.registered)
        #expect(session.replica.phase == .synced)
        #expect(session.replica.sequence == link.core.sequence && session.replica.sequence >= 1)
        #expect(session.replica.state == link.core.engine.state)
        #expect(session.knownTerm == 3 && session.followed.term == 0, "a single coordinator names no leader")
        #expect(session.pending.isEmpty, "everything answered")
    }

    @Test("K5: a user's command goes to the core as this node, its answer comes back with the client's id, and the replica follows")
    func commandRoundTrip() throws {
        var link = CoordinatorCoreLink()
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        _ = link.exchange(&session, session.start(now: H.at(0)), at: 0)
        let before = session.replica.sequence

        let request = Envelope.request(.openFullScreen(H.app, trigger: .user), sender: "ctl", requestID: 42)
        let forwarded = session.receiveControl(identity: [7], frame: request.serializedBytes(), now: H.at(1000))
        let actions = link.exchange(&session, forwarded, at: 1000)

        let reply = try #require(actions.controlReplies.first)
        #expect(reply.identity == [7] && reply.envelope.requestID == 42)
        guard case .ack(let ack)? = reply.envelope.body else { Issue.record("not an ack: \(reply.envelope)"); return }
        #expect(ack.sequence == before + 1)
        #expect(session.replica.sequence == before + 1)
        #expect(session.replica.state == link.core.engine.state)
        #expect(session.replica.state.apps[H.app] != nil, "the app is open in the replica")

        // K5: the same request resent (a lost reply) is answered, not applied again.
        let again = link.exchange(&session, [.send(try #require(forwarded.sent.first))], at: 2000)
        #expect(link.core.sequence == before + 1)
        #expect(again.metrics.isEmpty && session.replica.sequence == before + 1)
    }

    static let ipad2 = NodeRegistration(node: "ipad-2", attributes: .device(H.device))

    @Test("device groups: the node keeps its group's part; another device's batches neither reach nor change it")
    func keepsItsGroupOnly() throws {
        var link = CoordinatorCoreLink()
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        _ = link.exchange(&session, session.start(now: H.at(0)), at: 0)
        #expect(session.replica.group == H.node)
        link.admin(.registerNode(Self.ipad2), &session, at: 100)
        link.admin(.openFullScreen(AppID(device: "ipad-2", bundleID: "com.example.call"), trigger: .user), &session, at: 200)
        #expect(link.core.state.nodes["ipad-2"] != nil)
        #expect(session.replica.state.nodes["ipad-2"] == nil, "another device's group is not held")
        #expect(session.replica.state.equalsGroupPart(link.core.engine.state(ofGroup: H.node)))
        #expect(session.replica.groupSequence == link.core.groupSequences[H.node])
    }

    @Test("device groups: a lost batch of the group is replayed from the coordinator's memory, its last one too (the bookmark)")
    func lostGroupBatchesAreReplayed() throws {
        var link = CoordinatorCoreLink()
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        _ = link.exchange(&session, session.start(now: H.at(0)), at: 0)
        let lost = link.admin(.openFullScreen(H.app, trigger: .user), &session, at: 100, lost: true)
        #expect(lost.isEmpty && session.replica.state.apps[H.app]?.scene.isRunning != true)
        link.admin(.registerNode(Self.ipad2), &session, at: 150)
        // The group's next batch names the lost one as its previous: a replay of the group fills the gap.
        let next = link.admin(.sendToBackground(H.app, cause: .homeGesture), &session, at: 200)
        #expect(next.replayRequests.count == 1, "one replay of the group")
        #expect(session.replica.groupSequence == link.core.groupSequences[H.node])
        #expect(session.replica.state.equalsGroupPart(link.core.engine.state(ofGroup: H.node)))

        // The group's last batch lost, and nothing after it: the next bookmark shows it.
        link.admin(.openFullScreen(H.app, trigger: .user), &session, at: 300, lost: true)
        #expect(session.replica.groupSequence < link.core.groupSequences[H.node])
        let bookmarked = link.tick(&session, at: 2_000)
        #expect(bookmarked.replayRequests.count == 1, "the bookmark names a later batch than the replica holds")
        #expect(session.replica.groupSequence == link.core.groupSequences[H.node])
        #expect(session.replica.state.equalsGroupPart(link.core.engine.state(ofGroup: H.node)))
    }

    @Test("device groups: a display moved by a batch it never heard takes its new group's snapshot when its feed brings that group's bookmark")
    func movedWithoutHearingIt() throws {
        var link = CoordinatorCoreLink()
        let tv = NodeRegistration(node: "tv", attributes: .display(DisplayAttributes(name: "TV", attachedTo: H.node, cameras: [])))
        var display = NodeSession(settings: H.settings(tv), now: H.at(0))
        _ = link.exchange(&display, display.start(now: H.at(0)), at: 0)
        link.admin(.registerNode(NodeRegistration(node: H.node, attributes: .device(H.device))), &display, at: 100)
        #expect(link.core.state.nodes["tv"]?.attachedTo == H.node, "the display attached itself once its device was there")
        #expect(display.replica.group == H.node)
        link.admin(.detachDisplay(display: "tv"), &display, at: 200, lost: true)
        #expect(display.replica.group == H.node, "the detach never reached it")
        let bookmarked = link.tick(&display, at: 2_000)
        #expect(bookmarked.contains { if case .send(let envelope) = $0, case .snapshotRequest? = envelope.body { true } else { false } })
        #expect(display.replica.group == "tv", "its own group now, from its snapshot")
        #expect(display.replica.state.equalsGroupPart(link.core.engine.state(ofGroup: "tv")))
        #expect(display.replica.state.nodes[H.node] == nil, "nothing of the old group is kept")
    }

    /// A bookmark of the group it left, queued on its feed before the move its replica already holds
    /// (a snapshot overtook it on the other connection), is stale: no snapshot. One newer than
    /// anything the replica holds means a move it never heard: its group's snapshot.
    @Test("device groups: a stale bookmark of the group a display left costs no snapshot; a newer one does")
    func staleBookmarkIsNotAMove() throws {
        var link = CoordinatorCoreLink()
        let tv = NodeRegistration(node: "tv", attributes: .display(DisplayAttributes(name: "TV", attachedTo: H.node, cameras: [])))
        var display = NodeSession(settings: H.settings(tv), now: H.at(0))
        _ = link.exchange(&display, display.start(now: H.at(0)), at: 0)
        link.admin(.registerNode(NodeRegistration(node: H.node, attributes: .device(H.device))), &display, at: 100)
        #expect(display.replica.group == H.node && display.replica.phase == .synced)
        let held = display.replica.sequence
        func bookmark(_ sequence: UInt64) -> [NodeAction] {
            let envelope = Envelope(sender: Envelope.coordinatorSender, requestID: 0, term: link.core.term,
                                    body: .groupBookmark(.with { $0.group = "tv"; $0.sequence = sequence }))
            return display.receivePublication([Array("ev.tv\u{0}".utf8), envelope.serializedBytes()], now: H.at(300))
        }
        func asksForSnapshot(_ actions: [NodeAction]) -> Bool {
            actions.contains { if case .send(let envelope) = $0, case .snapshotRequest? = envelope.body { true } else { false } }
        }
        #expect(!asksForSnapshot(bookmark(held)), "the tv group's last batch is one the replica already holds: stale")
        #expect(display.replica.group == H.node && display.replica.phase == .synced)
        let moved = bookmark(held + 1)
        #expect(asksForSnapshot(moved), "a newer batch of another group: moved by a batch it never heard")
        #expect(moved.contains { if case .count(.movedUnheard(held: H.node)) = $0 { true } else { false } })
    }

    @Test("device groups: a node may read its own group only; another's snapshot or replay is refused")
    func readsItsOwnGroupOnly() throws {
        var link = CoordinatorCoreLink()
        var session = NodeSession(settings: H.settings(), now: H.at(0))
        _ = link.exchange(&session, session.start(now: H.at(0)), at: 0)
        link.admin(.registerNode(Self.ipad2), &session, at: 100)
        var snapshot = Envelope.snapshotRequest(sender: H.node.rawValue, requestID: 900)
        snapshot.body = .snapshotRequest(.with { $0.group = "ipad-2" })
        var replay = Camsync_V1_ReplayRequest()
        replay.group = "ipad-2"
        for request in [snapshot, Envelope(sender: H.node.rawValue, requestID: 901, body: .replayRequest(replay))] {
            let frame = InboundFrame(frames: [link.route, request.serializedBytes()])
            let answers = link.core.runTurn(at: CoordinatorCoreLink.at(200)) { $0.receive(frame, at: CoordinatorCoreLink.at(200)) }
            let reply = answers.compactMap { if case .reply(_, let envelope) = $0 { envelope } else { nil } }.first
            guard case .error(let error)? = reply?.body else { Issue.record("not refused: \(String(describing: reply))"); continue }
            #expect(error.code == .forbidden && error.message.contains("its own device group"))
            #expect(answers.contains(.count(.readRefused)))
        }
    }
}
