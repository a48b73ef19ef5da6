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

    /// A batch's publications: once on the feed of every node of the groups it touches (and of the
    /// nodes it removes), once on `all` for the watchers of everything.
    func publications(_ publication: Publication, groups: [NodeID], events: [Event] = []) -> [CoordinatorAction] {
        engine.recipients(ofGroups: groups, events: events).map { .publish(topic: EventTopic.node($0), publication) }
            + [.publish(topic: EventTopic.everyBatch, publication)]
    }

    /// The bookmarks due at this heartbeat (`BookmarkSchedule`): the sequence of each group's last
    /// batch, encoded once per group and sent on the feed of each of its nodes.
    mutating func groupBookmarks() -> [CoordinatorAction] {
        bookmarks.due(groupSequences).flatMap { group, last -> [CoordinatorAction] in
            let members = engine.members(ofGroup: group)   // none: unregistered, nobody follows it
            guard !members.isEmpty else { return [] }
            var bookmark = Camsync_V1_GroupBookmark()
            bookmark.group = group.rawValue
            bookmark.sequence = last
            let publication = Publication(Envelope(sender: Envelope.coordinatorSender, term: term, body: .groupBookmark(bookmark)))
            return members.map { .publish(topic: EventTopic.node($0), publication) }
        }
    }
}
