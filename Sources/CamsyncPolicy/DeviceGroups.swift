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
    /// The groups this command's batch goes to, sorted: the group of its subject before the command
    /// (`groupBefore`, nil when it had none) and after it (`state`), and the groups after it of every
    /// node its `events` join, rejoin, remove, attach or detach, with the device a display left or
    /// joined. So a display moving between groups reaches both, and a device that leaves takes the
    /// news to the groups of the displays it had.
    public func groups(before groupBefore: NodeID?, events: [Event], after state: ClusterState) -> [NodeID] {
        var groups: Set<NodeID> = []
        if let groupBefore { groups.insert(groupBefore) }
        if let subject = subjectNode { groups.insert(state.group(of: subject)) }
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
