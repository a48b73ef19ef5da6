public import CamsyncPolicy
public import CamsyncWire

/// What a coordinator that does not lead does with traffic (SPEC K6): it applies the leader's log
/// as it appears on etcd, and answers every request NOT_LEADER, naming the leader when it knows it.
extension CoordinatorCore {

    /// Applies one batch of the leader's log: the retry window (K5) and the engine follow exactly as
    /// recovery would. `.gap` when the batch is not the next one (the core then rebuilds from etcd);
    /// `.stale` for one already applied. The command is mapped from the decoded batch (never
    /// encoded and decoded again); the batch is kept for replays (`RecentBatches`).
    public mutating func follow(_ logged: LoggedBatch) -> FollowOutcome {
        let batch = logged.batch
        guard batch.sequence > sequence else { return .stale }
        guard batch.sequence == sequence + 1 else { return .gap }
        guard let command = try? Command(wire: batch.command),
              replay(sequence: batch.sequence, node: batch.sender,
                     requestID: batch.originRequestID, command: command,
                     at: Instant(milliseconds: batch.timeMs)) else { return .diverged }
        term = max(term, batch.term)
        committedSequence = sequence
        recentBatches.append(sequence: batch.sequence, encoded: logged.encoded)
        return .applied
    }

    public enum FollowOutcome: Sendable, Equatable { case applied, stale, gap, diverged }

    /// Why this coordinator does not lead, as NOT_LEADER errors say it.
    var notLeadingReason: String {
        if let trouble = highAvailability?.trouble { return trouble }
        switch role {
        case .rebuilding: return "reading its state from etcd"
        case .standby: return "a standby"
        case .catchingUp: return "elected, catching up with the log before leading"
        case .leading: return "leading"
        }
    }

    /// The answer to any request while not leading (a node heartbeat gets none).
    func notLeaderActions(_ envelope: Envelope, reply identity: [UInt8]) -> [CoordinatorAction] {
        guard envelope.body != nil, !envelope.isNodeHeartbeat else { return [] }
        let reason = notLeadingReason
        let leader = highAvailability?.leader
        var error = Camsync_V1_Error(code: .notLeader, message: Self.bounded(
            leader.map { "not the leader (\(reason)): the leader is \($0.name) at \($0.commandEndpoint), term \($0.term)" }
                ?? "not the leader (\(reason)), and no leader is known yet: retry shortly"))
        if let leader { error.leader = leader }
        return [.count(.refused(.notLeader)),
                .reply(routingID: identity, .error(error, requestID: envelope.requestID, term: term))]
    }
}

extension JournalEntry {
    /// The journal entry a published batch stands for (the etcd log keeps batches only).
    public init(publishedBatch batch: Camsync_V1_EventBatch) throws {
        self.init(publishedBatch: batch, encoded: try batch.serializedBytes())
    }

    /// The journal entry a batch read from the etcd log stands for, taken from its bytes as logged
    /// (its header has all an entry needs; nothing is encoded again).
    public init(logged: LoggedBatch) {
        self.init(publishedBatch: logged.batch, encoded: logged.encoded)
    }

    /// The same, `encoded` being the batch's bytes: the command is cut out of them, not encoded again.
    package init(publishedBatch batch: Camsync_V1_EventBatch, encoded: [UInt8]) {
        self.init(sequence: batch.sequence, term: batch.term, timeMilliseconds: batch.timeMs, node: batch.sender,
                  requestID: batch.originRequestID,
                  command: WireCodec.command(ofEncodedBatch: encoded) ?? WireCodec.encode(batch.command), batch: encoded)
    }
}

extension Camsync_V1_EventBatch {
    /// Who the batch's command came from, as the retry window (K5) keys it: its node, or the
    /// coordinator itself for a command it issued (a declared death, an engine deadline).
    var sender: String { originNode.isEmpty ? Envelope.coordinatorSender : originNode }
}
