import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire

/// Replies from the coordinator: registration, snapshots, attach, and relaying control requests' answers.
extension NodeSession {

    /// One message from the DEALER (a reply from the coordinator; one frame, an `Envelope`).
    /// NOT_LEADER leaves its request pending (K6); a reply under a lower term than one seen is
    /// ignored and leaves its request pending too.
    public mutating func receiveReply(_ frames: [[UInt8]], now: NodeTime) -> [NodeAction] {
        enter(now)
        let envelope = frames.count == 1 ? try? Envelope.decode(frames[0]) : nil
        if let envelope, case .error(let error)? = envelope.body, error.code == .notLeader {
            // The command socket works, but the coordinator behind it does not lead: not "heard" (a
            // standby keeps no node from seeing that the leader is silent). Its term is whatever it
            // applied last, so only the leader it names is checked against the terms seen.
            notLeader(error, requestID: envelope.requestID)
            return leave()
        }
        if let envelope, isStale(term: envelope.term, "reply") { return leave() }
        heardFromCoordinator()
        guard let envelope else {
            log(.warning, "undecodable reply from coordinator", ["frames": "\(frames.count)"])
            return leave()
        }
        noteTerm(envelope.term)
        if let request = pending.removeValue(forKey: envelope.requestID) {
            handleReply(envelope, to: request)
        }
        return leave()
    }

    mutating func handleReply(_ envelope: Envelope, to request: PendingRequest) {
        switch request.origin {
        case .register:
            handleRegisterReply(envelope, to: request)
        case .attach:
            if case .error(let error)? = envelope.body {
                log(.warning, "attach refused", ["message": "\(error.message)"])
                // Asked again at the next snapshot or batch this replica takes: the device's next
                // join may come inside a snapshot, never as a notice to apply.
                if registered { membership = .registered(attachAsked: false) }
            }
        case .snapshot:
            if catchUp == .snapshotRequested { catchUp = .none }
            handleSnapshotReply(envelope)
        case .replay:
            handleReplayReply(envelope)
        case .control(let identity, let clientRequestID, let command):
            if case .error(let error)? = envelope.body, case .startPiP(let app, _) = command, error.pipFailure != .unspecified {
                // No batch carries a refusal: stamp it with the next sequence, so that whoever asks for
                // what happened after the sequence it had when it acted sees it (docs/PROTOCOL.md).
                record(AppFacingEvent(sequence: replica.sequence + 1, app: app, name: "failedToStartPictureInPicture",
                                      details: [("reason", "\(error.pipFailure)"), ("message", error.message)]))
            }
            var answer = envelope
            answer.requestID = clientRequestID
            answer.sender = id.rawValue
            emit(.replyToControl(identity: identity, answer))
        }
    }

    mutating func handleRegisterReply(_ envelope: Envelope, to request: PendingRequest) {
        switch envelope.body {
        case .error(let error)? where error.code == .overloaded:
            // Admitted a bounded number a turn (a mass rejoin): asked again, with its id, after a
            // back-off of its own, so that the nodes turned away do not all come back at once.
            var later = request
            let backoff = registrationBackoff(attempt: request.attempts)
            later.sentAt = now.monotonic + backoff - settings.requestRetryMilliseconds
            pending[envelope.requestID] = later
            log(.info, "registration deferred: the coordinator is busy", ["retryInMs": "\(backoff)"])
        case .ack(let ack)?:
            membership = .registered(attachAsked: false)
            log(.info, "registered", ["sequence": "\(ack.sequence)", "term": "\(envelope.term)"])
            attachIfConfigured()
        case .error(let error)?:
            log(.error, "registration refused", ["code": "\(error.code)", "message": "\(error.message)"])
        default:
            break
        }
    }

    mutating func handleSnapshotReply(_ envelope: Envelope) {
        if case .error(let error)? = envelope.body {
            // Refused (the coordinator was busy, or not ready to serve it): asked again at the next
            // heartbeat, an interval later, while the replica still waits for a snapshot.
            log(.warning, "snapshot request refused", ["code": "\(error.code)", "message": "\(error.message)"])
            if settings.plantedBug != .dropSnapshotError, catchUp == .none, replica.phase != .synced { catchUp = .snapshotWanted }
            return
        }
        guard case .snapshot(let snapshot)? = envelope.body else { return }
        let state: ClusterState
        let policy: PolicySettings
        do {
            state = try snapshot.domainState()
            policy = try snapshot.domainSettings()
        } catch {
            log(.error, "undecodable snapshot", ["error": "\(error)"])
            requestSnapshot()
            return
        }
        // A group's snapshot makes a partial replica of that group (the whole state, a full one).
        let group = snapshot.group.isEmpty ? nil : NodeID(snapshot.group)
        let groupSequence = snapshot.state.groupSequences.first { $0.group == snapshot.group }?.sequence ?? 0
        let outcome = replica.receiveSnapshot(sequence: snapshot.sequence, term: snapshot.term, state: state, settings: policy,
                                              group: group, groupSequence: groupSequence)
        leader.noteTerm(snapshot.term)
        log(.info, "synced from snapshot", ["sequence": "\(snapshot.sequence)", "term": "\(snapshot.term)"])
        for batch in replica.coveredBySnapshot {
            for event in AppFacingEvent.from(batch.events, sequence: batch.sequence, device: id) { record(event) }
        }
        for decision in fence.adopt(replica.state) { record(decision) }
        if registered, replica.state.nodes[id]?.alive != true {
            // Declared dead while we could not hear it (a partition): rejoin with what we run (K2).
            join(reason: "snapshot shows this node is not alive")
            return
        }
        handle(outcome)
        refreshAssertions()
        // Detached without hearing why: its device left (and may be back: its return was a notice
        // this node could not hear). Asked again; refused while the device is away, and asked again
        // at the next snapshot or batch, or its device's next join.
        if registered, !detachedByRequest, case .display(let display) = settings.config.registration.attributes,
           display.attachedTo != nil, replica.state.nodes[id]?.attachedTo == nil {
            membership = .registered(attachAsked: false)
        }
        attachIfConfigured()
    }

    /// A display whose config names a device attaches to it once both are alive in the replica, once
    /// per join (and again when that device rejoins). Attached already — by its registration, when the
    /// device was alive then — counts as this join's attach: a later detach by the user stays.
    mutating func attachIfConfigured() {
        guard membership == .registered(attachAsked: false), replica.phase == .synced,
              case .display(let display) = settings.config.registration.attributes, let device = display.attachedTo,
              let me = replica.state.nodes[id], me.alive else { return }
        if me.attachedTo != nil {
            membership = .registered(attachAsked: true)
            return
        }
        // A replica of one group does not hold the device it waits for: the device's registration
        // reaches it as a notice (`applied`), and the coordinator refuses an attach to a device that
        // is not alive (it asks again when the device next joins).
        guard replica.group != nil || replica.state.nodes[device]?.alive == true else { return }
        membership = .registered(attachAsked: true)
        send(.request(.attachDisplay(display: id, device: device), sender: id.rawValue,
                      requestID: takeRequestID(), term: knownTerm), origin: .attach)
    }
}
