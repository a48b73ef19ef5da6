import CamsyncPolicy
import CamsyncWire

/// Coordinator silence and reconnection with back-off, request retries (K5), heartbeats (K1).
extension NodeSession {

    /// Time passed (the shell calls this after every poll, and at `nextDeadline` at the latest).
    public mutating func tick(now: NodeTime) -> [NodeAction] {
        enter(now)
        let now = now.monotonic
        let timeout = settings.heartbeatIntervalMilliseconds * settings.liveness
        if contact == .heard, now - lastHeardFromCoordinator > timeout {
            let delay = settings.heartbeatIntervalMilliseconds
            contact = .silent(nextReconnect: now + delay, delay: delay)
            log(.warning, "coordinator silent", ["silentForMs": "\(now - lastHeardFromCoordinator)"])
        }
        if case .silent(let nextReconnect, let delay) = contact, now >= nextReconnect {
            tryNextCoordinator()
            connect(reopen: true)
            let longer = min(delay * 2, 8_000)
            contact = .silent(nextReconnect: now + longer, delay: longer)
        }
        // No Lazy Pirate reopening while the coordinator is heard: its pushes come on the route its
        // replies take, so a connection that hears the leader holds the node's route (one that does
        // not — a half-open old connection kept it — falls silent, and reconnects above).
        for (requestID, request) in pending.sorted(by: { $0.key < $1.key })
        where now - request.sentAt >= settings.requestRetryMilliseconds {
            // Joining requests (register, snapshot, attach) retry until answered; a user's action gives up.
            if request.attempts >= settings.requestAttempts, case .control(let identity, let clientRequestID, _) = request.origin {
                pending[requestID] = nil
                let message = request.notLeader.map {
                    "no leader took it after \(request.attempts) attempts (last at \(followed.commandEndpoint)): \($0)"
                } ?? "no answer from the coordinator at \(followed.commandEndpoint) after \(request.attempts) attempts: is it running?"
                emit(.replyToControl(identity: identity, .error(Camsync_V1_Error(code: .overloaded, message: message),
                    requestID: clientRequestID, term: knownTerm, sender: id.rawValue)))
                continue
            }
            pending[requestID]?.attempts += 1
            pending[requestID]?.sentAt = now
            transmit(request.envelope)
        }
        if now - lastSentToCoordinator >= settings.heartbeatIntervalMilliseconds {
            transmit(.nodeHeartbeat(sender: id.rawValue, time: self.now.wall, term: knownTerm))
        }
        return leave()
    }

    /// Sends to the followed coordinator from now on (K6), on the connection the node keeps to it:
    /// as it is (a new leader named: its connection is open already), or opened afresh (`reopen`:
    /// after a long silence), dropping whatever was queued for a dead connection;
    /// then the feed counts as opening again. Pending requests are resent there with their ids (K5);
    /// their retry clocks are not reset.
    mutating func connect(reopen: Bool) {
        if reopen {
            log(.info, "reconnecting to coordinator", ["endpoint": "\(followed.commandEndpoint)", "backoffMs": "\(reconnectDelay)"])
            subscription = .opening
        }
        emit(.follow(commandEndpoint: followed.commandEndpoint, serverKey: followedServerKey, reopen: reopen))
        for (_, request) in pending.sorted(by: { $0.key < $1.key }) { transmit(request.envelope) }
    }
}
