import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ

/// Coordinator silence and reconnection with back-off, request retries (K5), heartbeats (K1).
extension NodeLoop {

    func runTimers() throws {
        let now = Clock.monotonicMilliseconds()
        if !coordinatorSilent, now - lastHeardFromCoordinator > settings.heartbeatIntervalMilliseconds * settings.liveness {
            coordinatorSilent = true
            nextReconnect = now + reconnectDelay
            logger.warning("coordinator silent", metadata: [
                "node": "\(id)", "silentForMs": "\(now - lastHeardFromCoordinator)"])
        }
        if coordinatorSilent, now >= nextReconnect {
            try reconnect()
            reconnectDelay = min(reconnectDelay * 2, 8_000)
            nextReconnect = now + reconnectDelay
        }
        // Lazy Pirate (zguide ch. 4): the coordinator is heard on PUB, yet requests have gone unanswered
        // on the command socket for a whole liveness timeout: that connection is dead or holds no route
        // (at a CURVE coordinator a half-open old connection keeps the node's routing id until ZMTP
        // heartbeats drop it). Open a fresh one; pending requests are resent with their ids (K5).
        let timeout = settings.heartbeatIntervalMilliseconds * settings.liveness
        if !coordinatorSilent, let oldest = pending.values.map(\.firstSentAt).min(),
           now - max(oldest, lastReplyOrReconnect) > timeout {
            logger.warning("no reply on the command socket; reopening it", metadata: [
                "node": "\(id)", "unansweredForMs": "\(now - max(oldest, lastReplyOrReconnect))"])
            try reconnect(subscriber: false)
        }
        for (requestID, request) in pending where now - request.sentAt >= settings.requestRetryMilliseconds {
            // Joining requests (register, snapshot, attach) retry until answered; a user's action gives up.
            if request.attempts >= settings.requestAttempts, case .control(let identity, let clientRequestID, _) = request.origin {
                pending[requestID] = nil
                replyToControl(identity, .error(Camsync_V1_Error(code: .overloaded,
                    message: "no answer from the coordinator at \(settings.coordinatorCommandEndpoint) after \(request.attempts) attempts: is it running?"),
                    requestID: clientRequestID, term: knownTerm, sender: id.rawValue))
                continue
            }
            pending[requestID]?.attempts += 1
            pending[requestID]?.sentAt = now
            transmit(request.bytes)
        }
        if now - lastSentToCoordinator >= settings.heartbeatIntervalMilliseconds {
            transmit(Envelope.nodeHeartbeat(sender: id.rawValue, time: Instant(milliseconds: Clock.wallMilliseconds()),
                                            term: knownTerm).serializedBytes())
        }
    }

    /// Fresh sockets after a long silence: drops whatever was queued for a dead connection.
    /// `subscriber: false` reopens only the command socket (Lazy Pirate).
    func reconnect(subscriber reopenSubscriber: Bool = true) throws {
        logger.info("reconnecting to coordinator", metadata: ["node": "\(id)", "backoffMs": "\(reconnectDelay)"])
        dealer.close()
        dealer = try Self.makeDealer(context, settings)
        lastReplyOrReconnect = Clock.monotonicMilliseconds()
        if reopenSubscriber {
            subscriber.close()
            subscriber = try Self.makeSubscriber(context, settings)
            subscriptionLive = false
        }
        registerPollItems()
        for request in pending.values { transmit(request.bytes) }
    }
}
