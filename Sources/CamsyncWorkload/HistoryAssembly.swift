package import CamsyncCoordinator
package import CamsyncNode
package import CamsyncPolicy
package import CamsyncHistory
import CamsyncWire
package import CamsyncCoordinatorCore

/// A run's `History` from what its processes recorded: the nodes' history entries (fence decisions,
/// app events), the acknowledged commands, the command log, and the final states. Shared by the
/// process soak and the simulator, so both are judged by the same checker on the same values.
package enum HistoryAssembly {
    package static func history(nodeEntries: [NodeHistoryEntry], acks: [AcknowledgedCommand], stops: [NodeStopped],
                        log entries: [JournalEntry], newestSnapshot: JournalSnapshot?,
                        coordinatorState: ClusterState, coordinatorSequence: UInt64,
                        coordinatorGroupSequences: [NodeID: UInt64] = [:], replicas: [ReplicaState],
                        operations: Int, faults: [FaultCount], endedAt: Instant,
                        partitions: [PartitionObservation] = []) throws -> History {
        var fence: [FenceRecord] = []
        var grants: [GrantObservation] = []
        var alerts: [AlertObservation] = []
        var audio: [AudioObservation] = []
        for entry in nodeEntries {
            switch entry {
            case .fence(let record):
                fence.append(record)
                let d = record.decision
                if case .allowed = d.kind {
                    grants.append(GrantObservation(node: record.node, system: d.system, app: d.app, token: d.token,
                                                   sequence: record.sequence, source: d.fromSnapshot ? .snapshot : .event))
                }
            case .app(let node, _, let sequence, let app, let name, _) where name == "recordingQualityAlert":
                alerts.append(AlertObservation(node: node, device: app.device, app: app, sequence: sequence))
            case .app(let node, _, let sequence, let app, let name, let details):
                if let seen = AudioObservation(node: node, app: app, sequence: sequence, name: name, details: details) {
                    audio.append(seen)
                }
            case .start:
                continue
            }
        }
        // Replay from the very first command when the log still holds it (it keeps the last 65,536
        // after a snapshot), so the C2 model check covers the whole run; else from the newest snapshot.
        let snapshot = entries.first?.sequence == 1 ? nil : newestSnapshot
        let base = try snapshot.map { try WireCodec.decodeState($0.state) }
        let baseSequence = snapshot?.sequence ?? 0
        let replay = ReplayInput(baseState: base, baseSequence: baseSequence, commands: try entries
            .filter { $0.sequence > baseSequence }
            .map { ReplayCommand(sequence: $0.sequence, command: try WireCodec.decodeCommand($0.command),
                                 at: Instant(milliseconds: $0.timeMilliseconds)) })
        let final = FinalState(
            coordinatorState: coordinatorState, coordinatorSequence: coordinatorSequence,
            journal: entries.map { JournalRow(sequence: $0.sequence, node: NodeID($0.node), requestID: $0.requestID) },
            journalCompactedThrough: (entries.first?.sequence ?? 1) - 1, replicas: replicas,
            coordinatorGroupSequences: coordinatorGroupSequences)
        return History(fence: fence, nodeStops: stops, grants: grants, acks: acks, alerts: alerts, audio: audio,
                       replay: replay, final: final, operations: operations, faults: faults, endedAt: endedAt,
                       partitions: partitions)
    }
}
