public import CamsyncWire

/// What a coordinator says of itself when asked (`coordinator_status_request`, SPEC K6): its name,
/// role, term and applied sequence, and the leader it knows. Every coordinator answers, leading or
/// not; the answer changes nothing.
extension CoordinatorCore {
    public var coordinatorStatus: Camsync_V1_CoordinatorStatus {
        var status = Camsync_V1_CoordinatorStatus()
        if let address = highAvailability?.address { status.coordinator = address }
        status.role = switch role {
        case .leading: "leading"
        case .standby: "standby"
        case .catchingUp: "catching up"
        case .rebuilding: "rebuilding"
        }
        status.term = term
        status.appliedSequence = sequence
        if let leader = highAvailability?.leader, !role.isLeading { status.leader = leader }
        if let trouble = highAvailability?.trouble { status.trouble = trouble }
        status.etcdEndpoints = settings.highAvailability?.etcd.map(\.description) ?? []
        return status
    }

    /// The answer to a status request, from whatever role.
    func coordinatorStatusReply(_ envelope: Envelope, to identity: [UInt8]) -> CoordinatorAction {
        .reply(routingID: identity, Envelope(sender: Envelope.coordinatorSender, requestID: envelope.requestID, term: term,
                                             body: .coordinatorStatus(coordinatorStatus)))
    }
}
