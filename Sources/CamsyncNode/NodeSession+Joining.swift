import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire

/// K2: registering (with assertions), the snapshot request once the feed is live, request bookkeeping.
extension NodeSession {

    /// Register (re-asserting what this node runs), then ask for a snapshot once the feed is live:
    /// the leader pushes on the connection it answers on, so nothing after the snapshot is missed.
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

    /// Asks for a snapshot once the feed is known to be live (something was pushed on the followed
    /// connection since it was opened: the leader holds its route, and what it pushes after the
    /// snapshot comes behind it). The registration's batch, or at worst the next heartbeat, shows it.
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

extension NodeSession {
    /// How long a registration turned away as OVERLOADED waits before it is sent again: the heartbeat
    /// interval, at most a second (a fleet's interval may be 5 s, and a rejoin is admitted in turns of
    /// milliseconds), doubled with each attempt (up to 8 times), times a factor between ½ and 1½ drawn
    /// from the node's id and the attempt — jitter, so that a fleet turned away at once comes back spread.
    func registrationBackoff(attempt: Int) -> Int64 {
        var random = SplitMix64(seed: FNV1a.hash(id.rawValue) ^ UInt64(attempt) ^ UInt64(bitPattern: now.monotonic))
        let base = min(settings.heartbeatIntervalMilliseconds, 1_000) << Int64(min(max(attempt - 1, 0), 3))
        return base / 2 + Int64(random.next() % UInt64(max(1, base)))
    }
}
