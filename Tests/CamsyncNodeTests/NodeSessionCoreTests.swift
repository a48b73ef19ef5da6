import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

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
}
