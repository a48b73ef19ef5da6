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
    func reconnect() throws {
        logger.info("reconnecting to coordinator", metadata: ["node": "\(id)", "backoffMs": "\(reconnectDelay)"])
        dealer.close()
        subscriber.close()
        dealer = try Self.makeDealer(context, settings)
        subscriber = try Self.makeSubscriber(context, settings)
        subscriptionLive = false
        registerPollItems()
        for request in pending.values { transmit(request.bytes) }
    }
}
