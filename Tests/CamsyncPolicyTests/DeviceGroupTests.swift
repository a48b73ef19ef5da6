import Testing
@testable import CamsyncPolicy

/// Device groups: which group a node is in, and which groups a command's batch reaches (a display
/// moving between groups reaches both; a device leaving reaches the groups its displays go to).
@Suite struct DeviceGroupTests {
    let ipad: NodeID = "ipad-1"
    let other: NodeID = "ipad-10"
    let tv: NodeID = "tv"

    /// Applies `command` and returns the groups its batch goes to, as the coordinator computes them.
    func groups(_ h: inout Harness, _ command: Command) -> [NodeID] {
        let before = command.subjectNode.map(h.state.group(of:))
        let events = h.ok(command)
        return command.groups(before: before, events: events, after: h.engine)
    }

    @Test("a device is its own group; an attached display is in its device's; a lone or unknown node in its own")
    func groupOfNodes() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(displayRegistration(tv, attachedTo: ipad)))
        h.ok(.registerNode(displayRegistration("lone")))
        #expect(h.state.group(of: ipad) == ipad)
        #expect(h.state.group(of: tv) == ipad)
        #expect(h.state.group(of: "lone") == "lone")
        #expect(h.state.group(of: "nobody") == "nobody")
    }

    @Test("a group's members: the device and its displays; a display attached to a device names no group, a detached one its own")
    func membersOfGroups() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(displayRegistration(tv)))
        #expect(PolicyEngine(state: h.state).members(ofGroup: tv) == [tv], "a lone display is a group of its own")
        h.ok(.attachDisplay(display: tv, device: ipad))
        var engine = PolicyEngine(state: h.state)
        #expect(engine.members(ofGroup: ipad) == [ipad, tv])
        // The display's own group ended when it attached: a bookmark or a batch of it reaches nobody
        // (the display follows its device's group now, and another group on its feed would mean it moved).
        #expect(engine.members(ofGroup: tv).isEmpty)
        #expect(engine.recipients(ofGroups: [tv]).isEmpty)
        #expect(engine.recipients(ofGroups: [ipad, tv]) == [ipad, tv])
        #expect(engine.members(ofGroup: "nobody").isEmpty)
        h.ok(.detachDisplay(display: tv))
        engine = PolicyEngine(state: h.state)
        #expect(engine.members(ofGroup: tv) == [tv] && engine.members(ofGroup: ipad) == [ipad])
    }

    @Test("batches and the groups they reach")
    func batchGroups() {
        var h = Harness()
        #expect(groups(&h, .registerNode(deviceRegistration(ipad))) == [ipad])
        #expect(groups(&h, .registerNode(deviceRegistration(other))) == [other])
        #expect(groups(&h, .registerNode(displayRegistration(tv, attachedTo: ipad))) == [ipad, tv],
                "registered attached: its own id before, its device's group after")
        #expect(groups(&h, .installApp(device: ipad, AppSpec(bundleID: "com.example.new"))) == [ipad])
        #expect(groups(&h, .openFullScreen(.on(ipad, Apps.notes), trigger: .user)) == [ipad])
        #expect(groups(&h, .setPressure(.external(CameraID(host: tv, name: "cam")), .fair)) == [ipad], "a display's camera is in its device's group")
        #expect(groups(&h, .detachDisplay(display: tv)) == [ipad, tv], "detached: leaves the device's group for its own")
        #expect(groups(&h, .attachDisplay(display: tv, device: other)) == [other, tv])
        #expect(groups(&h, .attachDisplay(display: tv, device: ipad)) == [ipad, other],
                "moved between devices: the group it left and the one it joined")
        #expect(groups(&h, .declareNodeDead(ipad)) == [ipad, tv], "a device's death takes its display into a group of its own")
        #expect(groups(&h, .unregisterNode(other)) == [other])
    }

    @Test("a device that registers reaches the displays that wait for it, and only those")
    func registrationReachesWaitingDisplays() {
        var h = Harness()
        #expect(groups(&h, .registerNode(displayRegistration("tv-2", attachedTo: "ipad-2"))) == ["tv-2"], "ipad-2 is not registered yet")
        #expect(groups(&h, .registerNode(displayRegistration("tv-3", attachedTo: "ipad-3"))) == ["tv-3"])
        #expect(groups(&h, .registerNode(displayRegistration("lone"))) == ["lone"])
        #expect(groups(&h, .registerNode(deviceRegistration("ipad-2"))) == ["ipad-2", "tv-2"])
        h.ok(.attachDisplay(display: "tv-2", device: "ipad-2"))
        h.ok(.declareNodeDead("ipad-2"))
        // tv-2 detached when its device died: it waits again, and hears the device's return.
        #expect(groups(&h, .registerNode(deviceRegistration("ipad-2"))) == ["ipad-2", "tv-2"])
        #expect(groups(&h, .registerNode(deviceRegistration("ipad-4"))) == ["ipad-4"], "nobody waits for it")
    }

    @Test("the part of several groups is their parts together, and what a command changes stays inside the groups it touches")
    func partsOfGroups() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(deviceRegistration(other)))
        h.ok(.registerNode(displayRegistration(tv, attachedTo: ipad)))
        h.ok(.attachDisplay(display: tv, device: ipad))
        let engine = PolicyEngine(state: h.state)
        let both = engine.state(ofGroups: [ipad, other])
        let parts = [engine.state(ofGroup: ipad), engine.state(ofGroup: other)]
        #expect(Set(both.nodes.keys) == Set(parts.flatMap(\.nodes.keys)) && Set(both.nodes.keys) == [ipad, other, tv])
        #expect(Set(both.apps.keys) == Set(parts.flatMap(\.apps.keys)) && !both.apps.isEmpty)
        #expect(Set(both.cameraSystems.keys) == Set(parts.flatMap(\.cameraSystems.keys)))
        // A command's changes lie inside the groups its batch reaches: outside them the state is the same.
        let before = h.state
        let touched = groups(&h, .openFullScreen(.on(ipad, Apps.notes), trigger: .user))
        let untouched = Set(h.state.nodes.keys).subtracting(touched.flatMap { PolicyEngine(state: h.state).members(ofGroup: $0) })
        #expect(PolicyEngine(state: h.state).state(ofGroups: Array(untouched)) == PolicyEngine(state: before).state(ofGroups: Array(untouched)))
    }
}
