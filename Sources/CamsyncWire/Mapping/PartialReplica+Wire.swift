public import CamsyncPolicy

// A node that runs no policy engine (the C display agent, agent/README.md) keeps a partial
// replica and says so with `NodeStatus.partial_replica` (docs/PROTOCOL.md "A client without an
// engine"). These are the one definition of what it keeps, and the agreement check for any node.

extension Camsync_V1_ClusterState {
    /// What a display agent keeps of `state`: the records of `display` and of `device` with only
    /// `id`, `alive` and `attached_to`; every camera system `display` hosts, whole. Nothing else.
    public init(partialReplicaOf state: ClusterState, display: NodeID, device: NodeID?) {
        self.init()
        nodes = [display, device].compactMap { $0 }.sorted().compactMap { id in
            guard let record = state.nodes[id] else { return nil }
            var wire = Camsync_V1_NodeRecord()
            wire.id = id.rawValue
            wire.alive = record.alive
            if let attached = record.attachedTo { wire.attachedTo = attached.rawValue }
            return wire
        }
        cameraSystems = state.cameraSystems.keys.sorted()
            .filter { if case .external(let camera) = $0 { camera.host == display } else { false } }
            .map { Camsync_V1_CameraSystemRecord(state.cameraSystems[$0]!) }
    }
}

extension Camsync_V1_NodeStatus {
    /// True when this node's replica equals `state` (the coordinator's, at the node's sequence):
    /// the whole state for a full replica; for a node's group replica, the group's part; for an
    /// engine-less view (its records carry no registration; it names its group too, so that
    /// `caughtUp` compares the group's last batch), the part it keeps, for the node and the device it lists.
    public func replicaAgrees(with state: ClusterState) throws(WireMappingError) -> Bool {
        guard partialReplica else { return try ClusterState(wire: replica) == state }
        if !group.isEmpty, !isEnginelessView {
            // A replica of one device group: the group's part of the state.
            return try ClusterState(wire: replica).equalsGroupPart(PolicyEngine(state: state).state(ofGroup: NodeID(group)))
        }
        let device = replica.nodes.first { $0.id != node }.map { NodeID($0.id) }
        return replica == Camsync_V1_ClusterState(partialReplicaOf: state, display: NodeID(node), device: device)
    }

    /// The view of a node without an engine (`partialReplicaOf`): records without registrations.
    var isEnginelessView: Bool { !replica.nodes.isEmpty && replica.nodes.allSatisfy { !$0.hasRegistration } }
}

