import CamsyncPolicy
import CamsyncWire

/// Gaps without a snapshot: a batch that skips a sequence, or a heartbeat ahead of the replica, means
/// batches were lost on the way (a slow subscriber, a reconnect, a leader that died between its
/// commit and its publication). The node asks the log for what is missing (`replay_request` after
/// its sequence) and holds live batches meanwhile; the replay's batches and the held ones then
/// apply in order. Only when the log cannot fill the gap (COMPACTED, an error, a batch that does
/// not decode) does it take a whole snapshot (docs/PROTOCOL.md, *The retry schedule*).
extension NodeSession {

    /// Most live batches held while a replay is under way; beyond that the oldest go (the next
    /// replay fetches them again).
    static let heldLimit = 10_000

    /// Takes `batch` here when the synced replica cannot apply it now: it skips a sequence (a replay
    /// starts), or a replay is under way (it waits). False: the replica takes it as usual.
    mutating func holdForReplay(_ batch: PublishedBatch) -> Bool {
        guard replica.phase == .synced, replica.isNew(batch) else { return false }
        if case .replaying(var held) = catchUp {
            catchUp = .none   // not two copies of the held batches while one is appended to
            if held.count >= Self.heldLimit { held.removeFirst() }
            held.append(batch)
            catchUp = .replaying(held: held)
            return true
        }
        guard !replica.follows(batch) else { return false }
        requestReplay(holding: [batch], "gap: expected sequence \(replica.sequence + 1), got \(batch.sequence)")
        return true
    }

    /// Asks the log for the batches after the replica's sequence; `held`: live batches that wait for them.
    mutating func requestReplay(holding held: [PublishedBatch] = [], _ reason: String) {
        catchUp = .replaying(held: held)
        emit(.count(.replayRequested))
        var request = Camsync_V1_ReplayRequest()
        request.afterSequence = replica.sequence
        if let group = replica.group {
            // The group's batches after the last one applied (the coordinator keeps them in memory).
            request.afterSequence = replica.groupSequence
            request.group = group.rawValue
        }
        log(.info, "replaying the log after a gap", ["reason": "\(reason)", "after": "\(request.afterSequence)"])
        send(Envelope(sender: id.rawValue, requestID: takeRequestID(), term: knownTerm, body: .replayRequest(request)),
             origin: .replay)
    }

    /// A snapshot is coming instead: the replay under way (if any) no longer matters.
    mutating func abandonReplay() {
        if case .replaying = catchUp { catchUp = .none }
        for (requestID, request) in pending { if case .replay = request.origin { pending[requestID] = nil } }
    }

    /// The replay's answer: its batches and the held ones apply as far as they continue the
    /// replica; if the log holds more than that, the next replay asks for it.
    mutating func handleReplayReply(_ envelope: Envelope) {
        guard case .replaying(let waiting) = catchUp else { return }
        catchUp = .none
        guard case .replay(let replay)? = envelope.body else {
            let why = if case .error(let error)? = envelope.body { "\(error.code): \(error.message)" } else { "an unexpected answer" }
            log(.info, "the log cannot fill the gap: snapshot", ["answer": "\(why)"])
            replica.resync()
            requestSnapshot()
            return
        }
        var batches: [PublishedBatch] = []
        for wire in replay.batches {
            guard let batch = try? PublishedBatch(wire: wire) else {
                log(.warning, "undecodable batch in a replay: snapshot", ["sequence": "\(wire.sequence)"])
                replica.resync()
                requestSnapshot()
                return
            }
            batches.append(batch)
        }
        var newest = replay.lastSequence
        for batch in (batches + waiting).sorted(by: { $0.sequence < $1.sequence }) where replica.isNew(batch) {
            newest = max(newest, batch.sequence)
            guard replica.phase == .synced, replica.follows(batch) else { continue }
            handle(replica.receive(batch))
        }
        let reached = replica.group == nil ? replica.sequence : replica.groupSequence
        if replica.phase == .synced, newest > reached {
            requestReplay("the replay ended at \(reached); the log has \(newest)")
        }
    }
}
