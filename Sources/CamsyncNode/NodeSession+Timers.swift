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
            reconnect(subscriber: true)
            let longer = min(delay * 2, 8_000)
            contact = .silent(nextReconnect: now + longer, delay: longer)
        }
        // Lazy Pirate (zguide ch. 4): the coordinator is heard on PUB, yet requests have gone unanswered
        // on the command socket for a whole liveness timeout: that connection is dead or holds no route
        // (at a CURVE coordinator a half-open old connection keeps the node's routing id until TCP
        // keepalive drops it). Open a fresh one; pending requests are resent with their ids (K5).
        if !coordinatorSilent, let oldest = pending.values.map(\.firstSentAt).min(),
           now - max(oldest, lastReplyOrReconnect) > timeout {
            log(.warning, "no reply on the command socket; reopening it", [
                "unansweredForMs": "\(now - max(oldest, lastReplyOrReconnect))"])
            reconnect(subscriber: false)
        }
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

    /// Fresh sockets after a long silence: drops whatever was queued for a dead connection. The
    /// DEALER connects to the followed coordinator (K6). `subscriber: false` reopens only the command
    /// socket (Lazy Pirate, or following a new leader). Pending requests are resent on the new
    /// socket with their ids (K5); their retry clocks are not reset.
    mutating func reconnect(subscriber reopenSubscriber: Bool) {
        log(.info, "reconnecting to coordinator", ["endpoint": "\(followed.commandEndpoint)", "backoffMs": "\(reconnectDelay)"])
        emit(.reconnect(commandEndpoint: followed.commandEndpoint, serverKey: followedServerKey, subscriber: reopenSubscriber))
        lastReplyOrReconnect = now.monotonic
        if reopenSubscriber { subscription = .opening }
        for (_, request) in pending.sorted(by: { $0.key < $1.key }) { transmit(request.envelope) }
    }
}
