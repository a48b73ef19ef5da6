import CamsyncNode
import CamsyncPolicy
import CamsyncWire

/// Read authority is addressing (docs/PROTOCOL.md "The feed"): a leader pushes a group's batch only
/// to the nodes of the groups it touches. A node may be in its own group, or — a display — in the
/// group of the device it is attached to; so a batch pushed to it must name one of those groups: the
/// node's own, its configured device's, or the one the leader holds it in now (it may have moved in
/// a later batch of the same phase, so the now is not the only answer).
extension Simulation {

    func checkAddressed(_ batch: Camsync_V1_EventBatch, to n: Int, by c: Int) {
        let node = nodes[n].config.id
        let groups = Set(batch.groups.map(\.group))
        var possible: Set<String> = [node.rawValue]
        if case .display(let display) = nodes[n].config.registration.attributes, let device = display.attachedTo {
            possible.insert(device.rawValue)
        }
        if let held = coordinators[c].core?.state.group(of: node) { possible.insert(held.rawValue) }
        guard groups.isDisjoint(with: possible) else { return }
        violation("\(coordinators[c].name) pushed batch \(batch.sequence) of groups \(groups.sorted()) to \(node), "
                  + "which is in none of them (its groups could be \(possible.sorted()))")
    }
}
