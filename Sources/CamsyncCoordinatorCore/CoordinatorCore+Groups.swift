public import CamsyncPolicy
public import CamsyncWire

/// Following one device group (docs/PROTOCOL.md "Following one group"): the group's part of the
/// state, the group's batches after a position (served from memory), the bookmark each group's
/// topic carries every heartbeat interval, and who may read which group.
extension CoordinatorCore {

    /// Why a read (snapshot, replay) of a group is refused.
    struct ReadRefusal: Error {
        var message: String
    }

    /// The group a snapshot or replay request may read: `named` (empty: the whole state), or the
    /// sender's own group (`mine`). An admin reads anything; a node reads its own group only, and
    /// under CURVE never the whole state (least privilege, docs/PROTOCOL.md "Authorisation"; in lab
    /// mode nothing proves who asks).
    func readableGroup(_ named: String, mine: Bool, sender: String, isAdmin: Bool) -> Result<NodeID?, ReadRefusal> {
        if mine { return .success(state.group(of: NodeID(sender))) }
        guard !named.isEmpty else {
            guard isAdmin || settings.security == nil else {
                return .failure(ReadRefusal(message: Self.bounded(
                    "node '\(sender)' may read its own device group (\(state.group(of: NodeID(sender)))) only, not the whole "
                    + "state: ask with only_my_group (a snapshot) or group (a replay)")))
            }
            return .success(nil)
        }
        let group = NodeID(named)
        guard isAdmin || group == state.group(of: NodeID(sender)) else {
            return .failure(ReadRefusal(message: Self.bounded(
                "node '\(sender)' may read its own device group (\(state.group(of: NodeID(sender)))) only, not '\(named)'")))
        }
        return .success(group)
    }

    func refuseRead(_ refusal: ReadRefusal, requestID: UInt64, to identity: [UInt8]) -> [CoordinatorAction] {
        [.count(.refused(.forbidden)), .count(.readRefused),
         .reply(routingID: identity, .error(Camsync_V1_Error(code: .forbidden, message: refusal.message), requestID: requestID, term: term))]
    }

    /// A group's snapshot: its part of the state at the current sequence, with the group's last batch.
    func groupSnapshotEnvelope(_ group: NodeID, requestID: UInt64) -> Envelope {
        var snapshot = Camsync_V1_Snapshot(sequence: sequence, term: term, state: engine.state(ofGroup: group))
        snapshot.settings = Camsync_V1_PolicySettings(settings.policy)
        snapshot.state.groupSequences = [Camsync_V1_GroupSequence(group: group, sequence: groupSequences[group])]
        snapshot.group = group.rawValue
        snapshot.livenessSettings = livenessSettings
        return Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: term, body: .snapshot(snapshot))
    }

    /// A group's batches after `request.afterSequence`, oldest first, found by following each batch's
    /// pointer to the group's previous one back from the group's last; `last_sequence` is the group's
    /// last batch. A batch no longer in memory → COMPACTED (take the group's snapshot).
    func groupReplayActions(_ request: Camsync_V1_ReplayRequest, group: NodeID, requestID: UInt64,
                            to identity: [UInt8]) -> [CoordinatorAction] {
        let limit = request.maxBatches == 0 ? Self.replayBatchLimit : min(Int(request.maxBatches), Self.replayBatchLimit)
        var chain: [Camsync_V1_EventBatch] = []
        var next = groupSequences[group]
        while next > request.afterSequence {
            guard let batch = batch(next), let entry = batch.groups.first(where: { $0.group == group.rawValue }) else {
                let error = Camsync_V1_Error(code: .compacted, message: Self.bounded(
                    "batch \(next) of group \(group) is no longer in memory: take the group's snapshot (sequence \(sequence))"))
                return [.reply(routingID: identity, .error(error, requestID: requestID, term: term))]
            }
            chain.append(batch)
            next = entry.sequence
        }
        var replay = Camsync_V1_Replay()
        replay.lastSequence = groupSequences[group]
        replay.batches = Array(chain.reversed().prefix(limit))
        return [.count(.replayServed),
                .reply(routingID: identity, Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: term,
                                                     body: .replay(replay)))]
    }

    /// Batch `sequence` wherever the core holds it: the turn being gathered, a turn in flight, or the
    /// committed batches kept in memory. (A reply that carries an uncommitted one leaves after it is
    /// durable, like every reply of the turn.)
    private func batch(_ sequence: UInt64) -> Camsync_V1_EventBatch? {
        if let gathered = turn.accepted.first?.sequence, sequence >= gathered, sequence - gathered < UInt64(turn.accepted.count) {
            return turn.accepted[Int(sequence - gathered)]
        }
        for flight in leaderWork?.inFlight ?? [] { if let batch = flight.commit.turnEntries.batch(sequence) { return batch } }
        guard let encoded = recentBatches.batch(sequence) else { return nil }
        return try? Camsync_V1_EventBatch(serializedBytes: encoded)
    }

    /// A batch's publications: pushed to every node of the groups it touches (and to the nodes it
    /// removes), each on its own connection, and once on the event socket's `all` for the observers
    /// of everything. Nobody else receives a group's batch: read authority is this addressing.
    /// `now`: monotonic ms, for `isReachable` (nil: a leadership beginning, everyone is).
    func publications(_ publication: Publication, groups: [NodeID], events: [Event] = [], at now: Int64?) -> [CoordinatorAction] {
        var recipients = engine.recipients(ofGroups: groups, events: events).filter { isReachable($0, at: now) }
        if settings.plantedBug == .pushToAnotherGroup,
           let stranger = state.nodes.keys.sorted().first(where: { !groups.contains(state.group(of: $0)) && !recipients.contains($0) }) {
            recipients.append(stranger)
        }
        return recipients.map { .push(routingID: Self.route($0), topic: EventTopic.node($0), publication) }
            + [.publish(topic: EventTopic.everyBatch, publication)]
    }

    /// Whether the leader pushes to `node`'s route now. Under CURVE only while the node has been
    /// heard on it within the liveness timeout (or the leadership is younger than that): a frame on a
    /// route is accepted only from the key bound to its node, so a connection that took a silent
    /// node's routing id (another admitted key, which can never send on it) stops receiving that
    /// node's feed within a liveness timeout. In lab mode nothing proves who holds a route: always.
    func isReachable(_ node: NodeID, at now: Int64?) -> Bool {
        guard settings.security != nil, let now, let work = leaderWork else { return true }
        return now - work.heard(node) <= livenessTimeoutMilliseconds
    }

    /// The connection a node's pushes go to: the one holding its node id as routing id (under CURVE
    /// only a connection of the key bound to that node keeps it, docs/PROTOCOL.md "Routing id").
    static func route(_ node: NodeID) -> [UInt8] { Array(node.rawValue.utf8) }

    /// The bookmarks due in the interval beginning (`BookmarkSchedule`): the sequence of each due
    /// group's last batch, encoded once per group; each of its nodes gets it at its slot.
    mutating func groupBookmarks() -> [NodeID: Publication] {
        var due: [NodeID: Publication] = [:]
        for (group, last) in bookmarks.due(groupSequences) where !engine.members(ofGroup: group).isEmpty {
            var bookmark = Camsync_V1_GroupBookmark()
            bookmark.group = group.rawValue
            bookmark.sequence = last
            due[group] = Publication(Envelope(sender: Envelope.coordinatorSender, term: term, body: .groupBookmark(bookmark)))
        }
        return due
    }
}
