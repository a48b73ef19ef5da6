public import CamsyncPolicy
public import CamsyncWire

/// Frames on the command socket: decode, authenticate, then commands through the engine (their log
/// append, reply and publication as actions), snapshots, replays, heartbeats. Every bad frame gets an
/// error reply where it can be answered, and a `badFrame` count.
extension CoordinatorCore {

    /// Handles one message from the command socket. Its replies and publications join the turn
    /// (`endTurn`); what is returned is for the shell to do now (counts, log lines, reads).
    public mutating func receive(_ message: InboundFrame, at time: CoordinatorTime) -> [CoordinatorAction] {
        gather(counted(decide(message, at: time)))
    }

    private mutating func decide(_ message: InboundFrame, at time: CoordinatorTime) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = checkLease(at: time)
        if let connection = message.connection, !routeDrops.isEmpty {
            // The descriptor of a connection due to be dropped speaks with another key: the caught
            // connection is gone and a new one has its number; that one is not dropped.
            routeDrops.removeAll { $0.connection == connection && $0.key != message.userID }
        }
        guard message.frames.count == 2, let identity = message.frames.first else {
            actions.append(.count(.badFrame(.frames)))
            if let identity = message.frames.first, message.frames.count > 2 {
                actions.append(.reply(routingID: identity, .error(Camsync_V1_Error(code: .malformed,
                    message: "expected exactly one frame (one Envelope) after the routing id, got \(message.frames.count - 1)"),
                    requestID: Envelope.requestID(salvagedFrom: message.frames[1]), term: term)))
            }
            return actions
        }
        let envelope: Envelope
        do {
            envelope = try Envelope.decode(message.frames[1])
        } catch {
            actions.append(.count(.badFrame(BadFrameReason(error))))
            actions.append(.reply(routingID: identity,
                .error(error, requestID: Envelope.requestID(salvagedFrom: message.frames[1]), term: term)))
            return actions
        }
        let sender = envelope.sender
        let isAdmin: Bool
        switch authenticate(sender: sender, userID: message.userID, routingID: identity) {
        case .success(let admin): isAdmin = admin
        case .failure(let refusal):
            actions.append(.count(.badFrame(refusal.reason)))
            actions.append(.reply(routingID: identity, .error(Camsync_V1_Error(code: .forbidden, message: refusal.message),
                                                               requestID: envelope.requestID, term: term)))
            if refusal.reason == .routingID {
                actions += routeTakeover(message, identity: identity, sender: sender, now: time.monotonicMilliseconds)
            }
            return actions
        }
        if case .coordinatorStatusRequest? = envelope.body {
            return actions + [coordinatorStatusReply(envelope, to: identity)]
        }
        guard role.isLeading else {
            return actions + notLeaderActions(envelope, reply: identity)
        }
        noteTraffic(from: sender, at: time.monotonicMilliseconds)
        switch envelope.body {
        case .command(let wire):
            let command: Command
            do {
                command = try envelope.domainCommand()
            } catch {
                actions.append(.count(.badFrame(.invalidCommand)))
                actions.append(.reply(routingID: identity, .error(Camsync_V1_Error(error), requestID: envelope.requestID, term: term)))
                return actions
            }
            if case .registerNode = command,
               retries.reply(for: .init(node: sender, requestID: envelope.requestID)) == nil {
                guard turn.registrations < settings.registrationsPerTurn else {
                    actions.append(.count(.refused(.overloaded)))
                    actions.append(.reply(routingID: identity, .error(Camsync_V1_Error(code: .overloaded, message:
                        "\(settings.registrationsPerTurn) registrations were admitted in this turn: ask again after a back-off"),
                        requestID: envelope.requestID, term: term)))
                    return actions
                }
                turn.registrations += 1
            }
            // A node registering itself is heard now: its registration's batch is pushed to it (under
            // CURVE the leader pushes to nodes heard within the liveness timeout, `isReachable`).
            if case .registerNode(let registration) = command, registration.node.rawValue == sender {
                leaderWork?.lastSeen[registration.node] = time.monotonicMilliseconds
            }
            actions += apply(command, wire: wire, from: sender, requestID: envelope.requestID, isAdmin: isAdmin,
                             replyTo: identity, at: time)
            // A node that has just registered is tracked from now on: its silence counts from its
            // registration, not from the coordinator's start (K1).
            noteTraffic(from: sender, at: time.monotonicMilliseconds)
        case .snapshotRequest(let request):
            // Answered at the end of the turn, all with one snapshot (`endTurn`): a thousand nodes
            // joining at once cost one encoding of the state per turn, not one each. A group's part
            // is made for each request (it is small).
            switch readableGroup(request.group, mine: request.onlyMyGroup, sender: sender, isAdmin: isAdmin) {
            case .success(let group) where work.snapshotBacklog.isEmpty && turn.snapshotRequests.count < settings.snapshotsPerTurn:
                actions.append(.count(.snapshotServed))
                turn.snapshotRequests.append((identity, envelope.requestID, group))
            case .success(let group) where work.snapshotBacklog.count < settings.snapshotBacklog:
                actions.append(.count(.snapshotServed))
                work.snapshotBacklog.append((identity, envelope.requestID, group))   // a later turn serves it
            case .success:
                actions.append(.count(.refused(.overloaded)))
                actions.append(.reply(routingID: identity, .error(Camsync_V1_Error(code: .overloaded, message:
                    "\(settings.snapshotBacklog) snapshot requests wait already: ask again after the next heartbeat"),
                    requestID: envelope.requestID, term: term)))
            case .failure(let refusal):
                actions += refuseRead(refusal, requestID: envelope.requestID, to: identity)
            }
        case .replayRequest(let request):
            switch readableGroup(request.group, mine: false, sender: sender, isAdmin: isAdmin) {
            case .success(let group?): actions += groupReplayActions(request, group: group, requestID: envelope.requestID, to: identity)
            case .success(nil): actions += replayActions(request, requestID: envelope.requestID, to: identity)
            case .failure(let refusal): actions += refuseRead(refusal, requestID: envelope.requestID, to: identity)
            }
        case .nodeHeartbeat:
            // A node the state does not hold (this coordinator lost its journal, or never saw it
            // register) is in no slot: it hears the heartbeat in answer, and learns from it that it
            // must catch up (and then join again).
            if engine.state.nodes[NodeID(sender)] == nil, !isAdmin {
                actions.append(.push(routingID: identity, topic: EventTopic.heartbeat, Publication(heartbeatEnvelope(at: time))))
            }
        default:
            actions.append(.count(.badFrame(.unexpectedMessage)))
            actions.append(.reply(routingID: identity, .error(Camsync_V1_Error(code: .unexpectedMessage,
                message: "the coordinator takes command, snapshot_request, replay_request and node_heartbeat bodies only"),
                requestID: envelope.requestID, term: term)))
        }
        return actions
    }

    /// A connection caught holding another node's route: after the refusal is sent, drop it, and refuse
    /// its key new connections for a while, so the route is free for the node it names
    /// (docs/PROTOCOL.md "Routing id").
    private mutating func routeTakeover(_ message: InboundFrame, identity: [UInt8], sender: String,
                                        now: Int64) -> [CoordinatorAction] {
        var actions: [CoordinatorAction] = []
        // One drop per connection: a second, due later, could cut a new connection that took the
        // descriptor's number after the first drop closed it.
        if let connection = message.connection, !routeDrops.contains(where: { $0.connection == connection }) {
            routeDrops.append(RouteDrop(connection: connection, due: now + 100, key: message.userID))
        }
        if let key = message.userID {
            actions.append(.suspendKey(key, milliseconds: max(10_000, 5 * livenessTimeoutMilliseconds)))
            actions.append(.log(.init(.warning, "a key held another node's route: connection dropped, key suspended", [
                "routingID": String(decoding: identity.prefix(64), as: UTF8.self), "sender": String(sender.prefix(64))])))
        }
        return actions
    }

    /// Runs a command through the engine. Accepted ones become a log append and a publication; the
    /// sender (if any) gets an ack or an error. `wire`: the command as it arrived (reused for the log and
    /// the batch); nil for the coordinator's own.
    mutating func apply(_ command: Command, wire: Camsync_V1_Command? = nil, from sender: String, requestID: UInt64,
                        isAdmin: Bool, replyTo identity: [UInt8]?, at time: CoordinatorTime) -> [CoordinatorAction] {
        lastEngineTime = max(lastEngineTime, time.wallMilliseconds)
        let engineTime = lastEngineTime
        let groupBefore = command.subjectNode.map(state.group(of:))
        let ordinalBefore = state.ordinal
        let (outcome, isRetry) = handle(command, from: sender, requestID: requestID, isAdmin: isAdmin,
                                        at: Instant(milliseconds: engineTime))
        var actions: [CoordinatorAction] = []
        switch outcome {
        case .accepted(let sequence, let events):
            if isRetry {
                actions.append(.count(.retried))
            } else {
                actions.append(.count(.accepted))
                if case .registerNode(let registration) = command { watchLiveness(of: registration.node) }
                if case .declareNodeDead(let node) = command {
                    actions.append(.count(.declaredDead))
                    actions.append(.log(.init(.warning, "node declared dead", ["node": "\(node)", "sequence": "\(sequence)"])))
                }
                let wireCommand = wire ?? Camsync_V1_Command(command)
                var batch = Camsync_V1_EventBatch(
                    sequence: sequence, term: term, time: Instant(milliseconds: engineTime),
                    originNode: sender == Envelope.coordinatorSender ? nil : NodeID(sender),
                    originRequestID: requestID, wireCommand: wireCommand, events: events)
                let groups = command.groups(before: groupBefore, events: events, after: engine)
                batch.groups = groupSequences.advance(groups, to: sequence)
                bookmarks.batchPublished(to: groups)
                batch.ordinal = ordinalBefore
                // Encoded later, once, by whoever makes the turn durable (`TurnEntries`); every feed
                // carries the same bytes.
                turn.accepted.append(batch)
                let publication = Publication(batch: batch, gatheredAt: turn.accepted.count - 1)
                actions += publications(publication, groups: groups, events: events, at: time.monotonicMilliseconds)
                for milliseconds in claims.observe(command, events: events, at: engineTime) {
                    actions.append(.count(.claimGranted(milliseconds: milliseconds)))
                }
            }
            if let identity { actions.append(.reply(routingID: identity, .ack(sequence: sequence, requestID: requestID, term: term))) }
        case .refused(let code, let message, let rejection):
            actions.append(.count(isRetry ? .retried : .refused(code)))
            guard let identity else {
                actions.append(.log(.init(.error, "coordinator's own command refused", ["command": "\(command)", "why": message])))
                return actions
            }
            var error = rejection.map(Camsync_V1_Error.init) ?? Camsync_V1_Error(code: code, message: message)
            error.code = code
            actions.append(.reply(routingID: identity, .error(error, requestID: requestID, term: term)))
        }
        return actions
    }

    /// Folds the counts of `actions` into `counters` (the shell exports them too).
    mutating func counted(_ actions: [CoordinatorAction]) -> [CoordinatorAction] {
        for case .count(let metric) in actions { counters.record(metric) }
        return actions
    }
}
