import CamsyncPolicy
import CamsyncWire

extension NodeSession {
    /// "What do you see": the replica, the app-facing events and the fence (control socket).
    func status(requestID: UInt64, afterSequence: UInt64) -> Envelope {
        var status = Camsync_V1_NodeStatus()
        status.node = id.rawValue
        status.registered = registered
        status.synced = replica.phase == .synced
        status.sequence = replica.sequence
        status.term = knownTerm   // the leader it follows: a group replica applies batches of its group only
        status.coordinatorReachable = isCoordinatorReachable
        status.replica = Camsync_V1_ClusterState(replica.state)
        status.partialReplica = replica.group != nil
        status.group = replica.group?.rawValue ?? ""
        status.groupSequence = replica.groupSequence
        status.appEvents = appEvents.elements.filter { $0.sequence > afterSequence }.map(Camsync_V1_AppEventRecord.init)
        status.fenceLog = fenceLog.elements.filter { $0.sequence > afterSequence }.map(Camsync_V1_FenceRecord.init)
        status.holders = fence.capturing.sorted { $0.key < $1.key }.map { system, holder in
            var wire = Camsync_V1_FenceHolder()
            wire.system = Camsync_V1_CameraSystemRef(system)
            wire.app = Camsync_V1_AppRef(holder.app)
            wire.token = holder.token.value
            return wire
        }
        return Envelope(sender: id.rawValue, requestID: requestID, term: knownTerm, body: .nodeStatus(status))
    }
}

extension Camsync_V1_AppEventRecord {
    init(_ event: AppFacingEvent) {
        self.init()
        sequence = event.sequence
        app = Camsync_V1_AppRef(event.app)
        name = event.name
        details = event.details.map { key, value in
            var detail = Detail()
            detail.key = key
            detail.value = value
            return detail
        }
    }
}
