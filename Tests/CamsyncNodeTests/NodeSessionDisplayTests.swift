import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// A display's attach without sockets: its registration names the device its configuration names
/// (SPEC §1); registered before that device, it stays detached and attaches with its own command once
/// it and its device are alive in its replica, and again after its device rejoins.
@Suite struct NodeSessionDisplayTests {
    typealias H = NodeSessionHarness
    static let display: NodeID = "display-1"

    @Test("a display attaches once both are alive, and again when its device comes back")
    func attachesAndReattaches() throws {
        let registration = NodeRegistration(node: Self.display, attributes: .display(DisplayAttributes(name: "TV", attachedTo: H.node)))
        var session = NodeSession(settings: H.settings(registration), now: H.at(0))
        var coordinator = FakeCoordinator()
        let device = NodeRegistration(node: H.node, attributes: .device(H.device))

        let start = session.start(now: H.at(0))
        let register = try #require(start.registrations.first)
        guard case .display(let attributes) = register.attributes else { Issue.record("not a display"); return }
        #expect(attributes.attachedTo == H.node, "the registration names the configured device (SPEC §1)")

        let snapshotRequest = try #require(session.receivePublication(coordinator.heartbeat(), now: H.at(100)).snapshotRequests.first)
        let registered = try coordinator.answer(try #require(start.requests.first))
        _ = session.receivePublication(try #require(registered.publication), now: H.at(150))
        #expect(session.receiveReply(registered.reply, now: H.at(200)).requests.isEmpty, "not synced yet: no attach")
        let synced = session.receiveReply(try coordinator.answer(snapshotRequest).reply, now: H.at(300))
        #expect(synced.requests.isEmpty, "its device has not joined: nothing to attach to")
        #expect(session.replica.state.nodes[Self.display]?.attachedTo == nil)
        let joined = session.receivePublication(try coordinator.publish(.registerNode(device)), now: H.at(320))
        let attach = try #require(joined.requests.first)
        #expect(try attach.domainCommand() == .attachDisplay(display: Self.display, device: H.node))
        #expect(session.attachRequested)

        let attached = try coordinator.answer(attach)
        _ = session.receivePublication(try #require(attached.publication), now: H.at(350))
        _ = session.receiveReply(attached.reply, now: H.at(400))
        #expect(session.replica.state.nodes[Self.display]?.attachedTo == H.node)

        // The device dies (the display is detached) and comes back: attach again.
        let died = session.receivePublication(try coordinator.publish(.declareNodeDead(H.node)), now: H.at(500))
        #expect(died.requests.isEmpty, "the device is gone: nothing to attach to")
        #expect(session.replica.state.nodes[Self.display]?.attachedTo == nil)
        let back = session.receivePublication(try coordinator.publish(.registerNode(device)), now: H.at(600))
        #expect(try back.requests.map { try $0.domainCommand() } == [.attachDisplay(display: Self.display, device: H.node)])
    }

    /// How the display last lost its device, unheard in both cases but a snapshot's.
    enum Detach: String, CaseIterable, CustomTestStringConvertible {
        /// Its device died and came back while the display heard nothing: the snapshot shows it detached.
        case deviceLeftAndCameBack
        /// A user detached it, heard as its batch; the next snapshot shows it detached.
        case byRequest
        var testDescription: String { rawValue }
    }

    @Test("a display found detached in a snapshot asks to attach again, unless it heard a request detach it",
          arguments: Detach.allCases)
    func detachedInASnapshot(_ detach: Detach) throws {
        let registration = NodeRegistration(node: Self.display, attributes: .display(DisplayAttributes(name: "TV", attachedTo: H.node)))
        var device0 = FakeCoordinator()
        let device = NodeRegistration(node: H.node, attributes: .device(H.device))
        _ = try device0.publish(.registerNode(device))
        var (session, coordinator) = try H.joined(settings: H.settings(registration), coordinator: device0)
        #expect(session.replica.state.nodes[Self.display]?.attachedTo == H.node, "attached by its registration")
        switch detach {
        case .deviceLeftAndCameBack:
            _ = try coordinator.publish(.declareNodeDead(H.node))   // lost
            _ = try coordinator.publish(.registerNode(device))      // lost
        case .byRequest:
            let detached = session.receivePublication(try coordinator.publish(.detachDisplay(display: Self.display)), now: H.at(900))
            #expect(detached.requests.isEmpty)
            _ = try coordinator.publish(.openFullScreen(H.app, trigger: .user))   // lost
        }
        coordinator.compacted = true
        let noticed = session.receivePublication(coordinator.heartbeat(), now: H.at(1000))
        let replay = try #require(noticed.requests.first)
        let refused = session.receiveReply(try coordinator.answer(replay).reply, now: H.at(1100))
        let snapshot = try #require(refused.snapshotRequests.first)
        let synced = session.receiveReply(try coordinator.answer(snapshot).reply, now: H.at(1200))
        #expect(session.replica.state.nodes[Self.display]?.attachedTo == nil)
        let asked = try synced.requests.map { try $0.domainCommand() }
        switch detach {
        case .deviceLeftAndCameBack: #expect(asked == [.attachDisplay(display: Self.display, device: H.node)])
        case .byRequest: #expect(asked.isEmpty, "a user's detach stays")
        }
    }
}
