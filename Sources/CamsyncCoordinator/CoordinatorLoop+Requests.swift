import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ZeroMQ

/// Requests on the ROUTER: decode, authenticate, then commands through the core (journal and publication
/// happen at the end of the turn), snapshots, heartbeats; every bad frame gets an error reply where possible.
extension CoordinatorLoop {

    /// Takes up to `batchLimit` requests, or what arrives within 20 ms, whichever ends first, so one
    /// turn (and the replies waiting for its group commit) stays short whatever the frames are.
    func drainRequests() throws {
        var handled = 0
        let started = Clock.monotonicMilliseconds()
        while handled < settings.batchLimit, let message = try router.receive(dontWait: true) {
            handled += 1
            handle(message)
            if handled % 64 == 0, Clock.monotonicMilliseconds() - started > 20 { break }
        }
    }

    func handle(_ message: ZMQMessage) {
        guard message.frames.count == 2, let identity = message.frames.first else {
            metrics.badFrame(reason: "frames")
            if let identity = message.frames.first, message.frames.count > 2 {
                reply(to: identity, .error(Camsync_V1_Error(code: .malformed,
                    message: "expected exactly one frame (one Envelope) after the routing id, got \(message.frames.count - 1)"),
                    requestID: Envelope.requestID(salvagedFrom: message.frames[1]), term: core.term))
            }
            return
        }
        let envelope: Envelope
        do {
            envelope = try Envelope.decode(message.frames[1])
        } catch {
            metrics.badFrame(reason: "\(error.code)")
            reply(to: identity, .error(error, requestID: Envelope.requestID(salvagedFrom: message.frames[1]), term: core.term))
            return
        }
        let sender = envelope.sender
        let isAdmin: Bool
        switch authenticate(sender: sender, userID: message.userID, routingID: identity) {
        case .success(let admin): isAdmin = admin
        case .failure(let refusal):
            metrics.badFrame(reason: refusal.reason)
            reply(to: identity, .error(Camsync_V1_Error(code: .forbidden, message: refusal.message),
                                       requestID: envelope.requestID, term: core.term))
            if refusal.reason == "routingID", let descriptor = message.connectionDescriptor {
                // The connection holds a route that is not its key's: after the refusal is sent, drop it,
                // and refuse that key new connections for a while, so the route is free for the node it
                // names (docs/PROTOCOL.md "Routing id").
                routesToDrop.append((descriptor, Clock.monotonicMilliseconds() + 100))
                if let key = message.userID {
                    zap?.suspend(key: key, for: .milliseconds(max(10_000, 5 * settings.livenessTimeoutMilliseconds)))
                    logger.warning("a key held another node's route: connection dropped, key suspended", metadata: [
                        "routingID": "\(String(decoding: identity.prefix(64), as: UTF8.self))", "sender": "\(sender.prefix(64))"])
                }
            }
            return
        }
        let now = Clock.monotonicMilliseconds()
        core.noteTraffic(from: sender, at: now)
        switch envelope.body {
        case .command:
            let command: Command
            do {
                command = try envelope.domainCommand()
            } catch {
                metrics.badFrame(reason: "malformed")
                reply(to: identity, .error(Camsync_V1_Error(error), requestID: envelope.requestID, term: core.term))
                return
            }
            apply(command, wire: envelope.command, from: sender, requestID: envelope.requestID, isAdmin: isAdmin, replyTo: identity)
            // A node that has just registered is tracked from now on: its silence counts from its
            // registration, not from the coordinator's start (K1).
            core.noteTraffic(from: sender, at: now)
        case .snapshotRequest:
            reply(to: identity, snapshotEnvelope(requestID: envelope.requestID, now: now))
        case .replayRequest(let request):
            reply(to: identity, replayEnvelope(request, requestID: envelope.requestID))
        case .nodeHeartbeat:
            break
        default:
            metrics.badFrame(reason: "unexpectedMessage")
            reply(to: identity, .error(Camsync_V1_Error(code: .unexpectedMessage,
                message: "the coordinator takes command, snapshot_request, replay_request and node_heartbeat bodies only"),
                requestID: envelope.requestID, term: core.term))
        }
    }

    /// Runs a command through the core; accepted ones are journaled and published at the end of the turn.
    /// `wire`: the command as it arrived (reused for the journal and the batch); nil for the coordinator's own.
    func apply(_ command: Command, wire: Camsync_V1_Command? = nil, from sender: String, requestID: UInt64,
                       isAdmin: Bool, replyTo identity: [UInt8]?) {
        let time = engineTime()
        let (outcome, isRetry) = core.handle(command, from: sender, requestID: requestID, isAdmin: isAdmin,
                                             at: Instant(milliseconds: time))
        switch outcome {
        case .accepted(let sequence, let events):
            if isRetry {
                metrics.retried()
            } else {
                metrics.accepted()
                if case .declareNodeDead(let node) = command {
                    metrics.declaredDead()
                    logger.warning("node declared dead", metadata: ["node": "\(node)", "sequence": "\(sequence)"])
                }
                let wireCommand = wire ?? Camsync_V1_Command(command)
                let batch = Camsync_V1_EventBatch(
                    sequence: sequence, term: core.term, time: Instant(milliseconds: time),
                    originNode: sender == CoordinatorCore.selfSender ? nil : NodeID(sender),
                    originRequestID: requestID, wireCommand: wireCommand, events: events)
                pendingEntries.append(JournalEntry(
                    sequence: sequence, term: core.term, timeMilliseconds: time, node: sender, requestID: requestID,
                    command: WireCodec.encode(wireCommand), batch: WireCodec.encode(batch)))
                pendingPublications.append((EventTopic.topic(for: command, in: core.state), .eventBatch(batch)))
            }
            if let identity { reply(to: identity, .ack(sequence: sequence, requestID: requestID, term: core.term)) }
        case .refused(let code, let message, let rejection):
            if isRetry { metrics.retried() } else { metrics.refused() }
            guard let identity else {
                logger.error("coordinator's own command refused", metadata: ["command": "\(command)", "why": "\(message)"])
                return
            }
            var error = rejection.map(Camsync_V1_Error.init) ?? Camsync_V1_Error(code: code.wire, message: message)
            error.code = code.wire
            reply(to: identity, .error(error, requestID: requestID, term: core.term))
        }
    }

    /// Engine time: wall-clock milliseconds, never going backwards across restarts.
    func engineTime() -> Int64 {
        lastEngineTime = max(lastEngineTime, Clock.wallMilliseconds())
        return lastEngineTime
    }

    func reply(to identity: [UInt8], _ envelope: Envelope) {
        pendingReplies.append((identity, envelope))
    }
}
