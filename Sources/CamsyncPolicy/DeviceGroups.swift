/// Device groups (docs/PROTOCOL.md "Device groups"): a device and the displays attached to it are
/// one group, named by the device's id; a display attached to nothing is a group of its own, named
/// by its id. Every rule of the engine acts inside one group — layout, PiP, audio and a device's
/// cameras are per device, and a display's camera serves only apps of the device it is attached to
/// (C10) — so a group's batches are what a follower of that group needs. Only K1/K2 (deaths,
/// registrations) and attach/detach move nodes between groups; their batches reach every group
/// they touch.
extension ClusterState {
    /// The group `node` belongs to: the device it is attached to, for a display; else itself (also
    /// for a node the state does not hold).
    public func group(of node: NodeID) -> NodeID {
        guard let record = nodes[node], record.kind == .display, let device = record.attachedTo else { return node }
        return device
    }
}

extension Command {
    /// Whether the command can move nodes between groups (or out of the cluster): registrations,
    /// attaches, detaches, deaths, unregistrations.
    public var movesNodes: Bool {
        switch self {
        case .registerNode, .unregisterNode, .declareNodeDead, .attachDisplay, .detachDisplay: true
        default: false
        }
    }

    /// The groups this command's batch goes to, sorted: the group of its subject before the command
    /// (`groupBefore`, nil when it had none) and after it (`engine`, having applied it), and the
    /// groups after it of every node its `events` join, rejoin, remove, attach or detach, with the
    /// device a display left or joined. So a display moving between groups reaches both, and a device
    /// that leaves takes the news to the groups of the displays it had; a device that registers
    /// reaches the displays that wait for it.
    public func groups(before groupBefore: NodeID?, events: [Event], after engine: PolicyEngine) -> [NodeID] {
        let state = engine.state
        var groups: Set<NodeID> = []
        if let groupBefore { groups.insert(groupBefore) }
        if let subject = subjectNode { groups.insert(state.group(of: subject)) }
        // A device (re)joining reaches the displays that wait for it: they attach themselves once
        // they hear it (SPEC §1).
        if case .registerNode(let registration) = self, registration.kind == .device {
            groups.formUnion(engine.displaysWaiting(for: registration.node))
        }
        for event in events {
            switch event {
            case .nodeJoined(let node, _), .nodeRejoined(let node, _), .nodeLeft(let node, _):
                groups.insert(state.group(of: node))
            case .displayAttached(let display, let device), .displayDetached(let display, let device):
                groups.insert(device)
                groups.insert(state.group(of: display))
            default:
                continue
            }
        }
        return groups.sorted()
    }
}

extension PolicyEngine {
    /// The nodes of `group`: the device (or lone display) it is named after, and the displays attached
    /// to it. None when no group has that name now: the node is unknown, or it is a display attached
    /// to a device (its own group, of the time it was detached, is gone until it detaches again).
    public func members(ofGroup group: NodeID) -> [NodeID] {
        guard state.nodes[group] != nil, state.group(of: group) == group else { return [] }
        return [group] + index.attachedDisplays(device: group)
    }

    /// The displays that wait for `device`: configured for it (their registration names it) and
    /// attached to nothing, in id order.
    public func displaysWaiting(for device: NodeID) -> [NodeID] {
        index.displaysConfigured(for: device).filter { state.nodes[$0]?.attachedTo == nil }
    }

    /// The nodes a batch of `groups` goes to (each on its own feed, `EventTopic.node`): every node of
    /// each group as the state is now, and the nodes its `events` remove (a node declared dead hears
    /// it, should it be alive). Sorted, each once: a display that moved between two of the groups is
    /// in one of them now and hears the batch once.
    public func recipients(ofGroups groups: [NodeID], events: [Event] = []) -> [NodeID] {
        var nodes: Set<NodeID> = []
        for group in groups { nodes.formUnion(members(ofGroup: group)) }
        for case .nodeLeft(let node, _) in events { nodes.insert(node) }
        return nodes.sorted()
    }

    /// The part of the state a follower of `group` keeps: the group's nodes, their apps and the camera
    /// systems they host, their recording alerts, and the logical clock.
    public func state(ofGroup group: NodeID) -> ClusterState {
        state(ofGroups: [group])
    }

    /// The parts of several groups together (what a command touching them can change).
    public func state(ofGroups groups: [NodeID]) -> ClusterState {
        var part = ClusterState()
        part.ordinal = state.ordinal
        var devices: Set<NodeID> = []
        for group in groups {
            let members = members(ofGroup: group)
            for node in members {
                part.nodes[node] = state.nodes[node]
                for system in index.systems(hostedBy: node) { part.cameraSystems[system] = state.cameraSystems[system] }
                if state.recordingAlertShown.contains(node) { part.recordingAlertShown.insert(node) }
            }
            if let device = members.first, state.nodes[device]?.kind == .device { devices.insert(device) }
        }
        for device in devices {
            for id in index.installedApps(of: device) { part.apps[id] = state.apps[id] }
        }
        return part
    }

    /// Drops what is no longer in `group` (a display detached or moved away, a node gone): what a
    /// replica of the group keeps after a command that moves nodes between groups.
    public mutating func keepOnly(group: NodeID) {
        let part = state(ofGroup: group)
        guard part != state else { return }
        self = PolicyEngine(settings: settings, state: part)
    }

    /// A follower of one group continues the coordinator's logical clock from the batch's `ordinal`
    /// before replaying its command, so that its part of the state equals the coordinator's.
    public mutating func continueOrdinals(from ordinal: UInt64) {
        state.ordinal = ordinal
    }
}

extension ClusterState {
    /// Whether this group's part equals `other`, the logical clock aside: a replica of one group holds
    /// the clock as of its group's last batch, the coordinator's part as of the cluster's last (only
    /// the order of the values it hands out matters, C6 and P4, and each batch carries it).
    public func equalsGroupPart(_ other: ClusterState) -> Bool {
        var mine = self, theirs = other
        mine.ordinal = 0
        theirs.ordinal = 0
        return mine == theirs
    }
}
