public import CamsyncPolicy
public import CamsyncWire

/// Which part a coordinator plays (SPEC K6). An embedded coordinator always leads. In HA, etcd
/// decides: the leader decides and publishes; a standby applies the leader's log as it appears
/// on etcd (`follow`) and answers every request with NOT_LEADER, naming the leader when known.
public enum CoordinatorRole: Sendable, Equatable {
    case leader
    /// `leader`: the current leader as etcd shows it (nil: none known); `reason`: why this one is
    /// not leading (said in NOT_LEADER errors, e.g. "etcd has no quorum").
    case standby(leader: Camsync_V1_CoordinatorAddress?, reason: String)

    /// The leader a standby knows (nil when leading, or none known).
    public var knownLeader: Camsync_V1_CoordinatorAddress? {
        if case .standby(let leader, _) = self { leader } else { nil }
    }
}

extension CoordinatorCore {

    /// Won the election in `term` with the log applied through `sequence`: start deciding. Nodes get
    /// a full liveness timeout of grace, and the first heartbeat (naming this coordinator, so that
    /// nodes follow it) goes out at the next `tick`.
    public mutating func becomeLeader(term: UInt64, at time: CoordinatorTime) -> [CoordinatorAction] {
        self.term = term
        role = .leader
        nextHeartbeat = 0
        beginServing(at: time)
        return [.count(.role(leading: true, term: term)),
                .log(.init(.info, "leading", ["term": "\(term)", "sequence": "\(sequence)"]))]
    }

    /// Stops deciding at once. The engine may hold commands of a turn that was never made durable,
    /// so the shell must rebuild the core from the log before it leads again.
    public mutating func becomeStandby(reason: String, leader: Camsync_V1_CoordinatorAddress? = nil,
                                       address: Camsync_V1_CoordinatorAddress? = nil) {
        role = .standby(leader: leader, reason: reason)
        if let address { self.address = address }
    }

    /// A standby applies one batch of the leader's log (SPEC K6): the retry window (K5) and the
    /// engine follow exactly as recovery would. `.gap` when the batch is not the next one (the
    /// shell then rebuilds from etcd); `.stale` for one already applied.
    public mutating func follow(_ batch: Camsync_V1_EventBatch) -> FollowOutcome {
        guard batch.sequence > sequence else { return .stale }
        guard batch.sequence == sequence + 1 else { return .gap }
        guard let entry = try? JournalEntry(publishedBatch: batch),
              let command = try? WireCodec.decodeCommand(entry.command),
              replay(sequence: entry.sequence, node: entry.node, requestID: entry.requestID, command: command,
                     at: Instant(milliseconds: entry.timeMilliseconds)) else { return .diverged }
        term = max(term, batch.term)
        committedSequence = sequence
        return .applied
    }

    public enum FollowOutcome: Sendable, Equatable { case applied, stale, gap, diverged }

    /// The answer a standby gives to any request.
    func notLeaderActions(_ envelope: Envelope, reply identity: [UInt8],
                          leader: Camsync_V1_CoordinatorAddress?, reason: String) -> [CoordinatorAction] {
        guard envelope.body != nil, !envelope.isNodeHeartbeat else { return [] }
        var error = Camsync_V1_Error(code: .notLeader, message: Self.bounded(
            leader.map { "not the leader (\(reason)): the leader is \($0.name) at \($0.commandEndpoint), term \($0.term)" }
                ?? "not the leader (\(reason)), and no leader is known yet: retry shortly"))
        if let leader { error.leader = leader }
        return [.count(.refused(.notLeader)),
                .reply(routingID: identity, .error(error, requestID: envelope.requestID, term: term))]
    }
}

extension Envelope {
    var isNodeHeartbeat: Bool {
        if case .nodeHeartbeat? = body { return true }
        return false
    }
}

extension JournalEntry {
    /// The journal entry a published batch stands for (the etcd log keeps batches only).
    public init(publishedBatch batch: Camsync_V1_EventBatch) throws {
        self.init(sequence: batch.sequence, term: batch.term, timeMilliseconds: batch.timeMs,
                  node: batch.originNode.isEmpty ? Envelope.coordinatorSender : batch.originNode,
                  requestID: batch.originRequestID, command: try batch.command.serializedBytes(),
                  batch: try batch.serializedBytes())
    }
}
