import CamsyncPolicy

/// A node moves its replica of a device group batch by batch, each the group's next in the log, or
/// takes a snapshot: a replica that went from the group's batch A to its batch B without a snapshot
/// must have applied every batch of the group between them (B's previous, its previous, … down to A).
/// Applying a batch whose previous it never had would leave the replica wrong until something else
/// replaced it; this sees it when it happens, not only at the end of the run. And a replica never
/// decides a batch differently from the leader: if it does, it did not hold the leader's state.
extension Simulation {

    struct GroupPosition {
        var group: NodeID?
        var groupSequence: UInt64
        var snapshots: Int
        var divergences: Int
    }

    func groupPosition(_ n: Int) -> GroupPosition {
        let replica = nodes[n].session!.replica
        return GroupPosition(group: replica.group, groupSequence: replica.groupSequence, snapshots: replica.snapshotsTaken,
                             divergences: replica.divergences)
    }

    func checkGroupChain(_ n: Int, from before: GroupPosition) {
        guard let session = nodes[n].session else { return }
        let replica = session.replica
        if replica.divergences > before.divergences {
            violation("\(nodes[n].config.id)'s replica decided a batch differently from the leader: it did not hold the "
                      + "leader's state (group \(before.group.map { "\($0)" } ?? "all") at batch \(before.groupSequence)): \(replica.lastDivergence)")
        }
        guard let group = replica.group, group == before.group, replica.snapshotsTaken == before.snapshots,
              replica.groupSequence > before.groupSequence else { return }
        var at = replica.groupSequence
        while at > before.groupSequence {
            // A batch of another group (a notice to a display) or one no leader published: not judged.
            guard let previous = groupPrevious[at]?[group.rawValue] else { return }
            at = previous
        }
        if at != before.groupSequence {
            violation("\(nodes[n].config.id) moved group \(group) from batch \(before.groupSequence) to \(replica.groupSequence) "
                      + "without the group's batches between them (the chain passes \(at))")
        }
    }

    /// A node that takes its feed's bookmark of another group for a move it never heard must have
    /// been moved: the leader does not have it in the group its replica held. (A bookmark queued
    /// before a move the replica already holds, overtaken by the snapshot that showed the move, is
    /// stale, and costs no snapshot.)
    func checkUnheardMove(_ n: Int, held: NodeID) {
        // The leader of the newest term: a deposed one may not know it yet.
        let leading = coordinators.indices.filter { coordinators[$0].running && coordinators[$0].core?.role.isLeading == true }
        guard let leader = leading.max(by: { (coordinators[$0].core?.term ?? 0) < (coordinators[$1].core?.term ?? 0) }),
              let state = coordinators[leader].core?.state else { return }
        let node = nodes[n].config.id
        guard state.group(of: node) == held else { return }
        violation("\(node) took a stale bookmark for a move: the leader \(coordinators[leader].name) has it in \(held), "
                  + "the group its replica held")
    }
}
