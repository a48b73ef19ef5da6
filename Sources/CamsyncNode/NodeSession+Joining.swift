import CamsyncPolicy
import CamsyncWire

/// K2: registering (with assertions), the live-subscription snapshot request, request bookkeeping.
extension NodeSession {

    /// Register (re-asserting what this node runs), then ask for a snapshot. The SUB socket is
    /// already subscribed, so nothing published after the snapshot can be missed.
    /// `resync`: also replace the replica with a fresh snapshot. A coordinator restart does not need
    /// it (the journal brings back the same sequence; a gap would show in its heartbeats), so the
    /// replica keeps applying batches in order and no app-facing event is skipped.
    mutating func join(reason: String, resync: Bool = true) {
        membership = .joining
        if resync {
            replica.resync()
            catchUp = .none
        }
        // Requests to a previous coordinator incarnation are abandoned: register/snapshot restart here.
        for (requestID, request) in pending {
            switch request.origin {
            case .register, .attach: pending[requestID] = nil
            case .snapshot where resync: pending[requestID] = nil
            case .snapshot: break
            case .replay where resync: pending[requestID] = nil
            case .replay: break
            case .control: break
            }
        }
        var registration = settings.config.registration
        registration.assertions = assertions
        // A display's registration names the device its configuration names (SPEC §1: the only device
        // it may attach itself to). It attaches at once if that device is alive, else with its own
        // command once it is (the device may join later).
        log(.info, "joining", ["reason": "\(reason)", "assertions": "\(assertions.count)"])
        emit(.count(.registrationSent))
        send(.request(.registerNode(registration), sender: id.rawValue, requestID: takeRequestID(), term: knownTerm),
             origin: .register)
        if resync { requestSnapshot() }
    }

    /// Asks for a snapshot once the subscription is known to be live (the SUB socket has received
    /// something since it connected): then nothing published after the snapshot can be lost to the
    /// slow-joiner race. Heartbeats arrive every interval, so this waits at most one interval.
    mutating func requestSnapshot() {
        abandonReplay()
        guard catchUp != .snapshotRequested else { return }   // the one out brings the state
        catchUp = .snapshotWanted
        guard subscription == .live else { return }
        catchUp = .snapshotRequested
        emit(.count(.snapshotRequested))
        var request = Envelope.snapshotRequest(sender: id.rawValue, requestID: takeRequestID(), term: knownTerm)
        if case .snapshotRequest(var body)? = request.body {
            body.onlyMyGroup = true   // this node's device group: the part of the state it keeps
            request.body = .snapshotRequest(body)
        }
        send(request, origin: .snapshot)
    }

    mutating func takeRequestID() -> UInt64 {
        nextRequestID += 1
        return nextRequestID
    }

    /// Sends a request and keeps it until its reply arrives (retried with the same id, K5).
    mutating func send(_ envelope: Envelope, origin: PendingRequest.Origin) {
        pending[envelope.requestID] = PendingRequest(origin: origin, envelope: envelope, sentAt: now.monotonic,
                                                     firstSentAt: now.monotonic, attempts: 1)
        transmit(envelope)
    }

    /// Anything on the command socket counts as traffic: a heartbeat is due an interval later.
    mutating func transmit(_ envelope: Envelope) {
        emit(.send(envelope))
        lastSentToCoordinator = now.monotonic
    }
}
