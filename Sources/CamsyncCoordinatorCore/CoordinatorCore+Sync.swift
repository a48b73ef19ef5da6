public import CamsyncWire

/// What a client needs to follow the cluster: the snapshot (with liveness, settings and counters) and
/// replays of published batches from the log.
extension CoordinatorCore {

    /// Most batches one replay reply carries, and about how many bytes.
    public static let replayBatchLimit = 1000
    public static let replayByteLimit = 512 * 1024

    /// A snapshot reply. The state's wire form is made once per sequence (a thousand nodes joining at
    /// once ask for the same state); liveness and counters are the moment's.
    mutating func snapshotEnvelope(requestID: UInt64, now: Int64) -> Envelope {
        var snapshot: Envelope
        if let cached = snapshotCache, cached.sequence == sequence, cached.term == term {
            snapshot = Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: term, body: .snapshot(cached))
        } else {
            snapshot = Envelope.snapshot(state, sequence: sequence, term: term, requestID: requestID, settings: settings.policy)
            if case .snapshot(var body)? = snapshot.body {
                body.state.groupSequences = groupSequences.wire
                snapshot.body = .snapshot(body)
                snapshotCache = body
            }
        }
        guard case .snapshot(var body)? = snapshot.body else { return snapshot }
        body.liveness = silence(at: now).map { node, silent in
            var entry = Camsync_V1_NodeLiveness()
            entry.node = node.rawValue
            entry.silentMs = silent
            return entry
        }
        body.livenessSettings = livenessSettings
        body.counters = counters.wire
        snapshot.body = .snapshot(body)
        return snapshot
    }

    var livenessSettings: Camsync_V1_LivenessSettings {
        var wire = Camsync_V1_LivenessSettings()
        wire.heartbeatIntervalMs = UInt32(clamping: settings.heartbeatIntervalMilliseconds)
        wire.liveness = UInt32(clamping: settings.liveness)
        return wire
    }

    /// A replay request: answered at once from the batches kept in memory (`recentBatches`), or when
    /// there is nothing after `after_sequence`; otherwise the shell reads the log (`serveReplay`) and
    /// calls `replayReply`.
    func replayActions(_ request: Camsync_V1_ReplayRequest, requestID: UInt64, to identity: [UInt8]) -> [CoordinatorAction] {
        let limit = request.maxBatches == 0 ? Self.replayBatchLimit : min(Int(request.maxBatches), Self.replayBatchLimit)
        guard request.afterSequence < committedSequence else {
            var replay = Camsync_V1_Replay()
            replay.lastSequence = committedSequence
            return [.count(.replayServed), .reply(routingID: identity,
                    Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: term, body: .replay(replay)))]
        }
        guard recentBatches.holds(after: request.afterSequence) else {
            return [.serveReplay(routingID: identity, requestID: requestID, after: request.afterSequence, limit: limit)]
        }
        let kept = recentBatches.after(request.afterSequence, through: committedSequence, limit: limit, byteLimit: Self.replayByteLimit)
        let envelope = replayEnvelope(after: request.afterSequence, requestID: requestID, stored: .success(kept))
        if case .replay? = envelope.body { return [.count(.replayServed), .reply(routingID: identity, envelope)] }
        return [.reply(routingID: identity, envelope)]
    }

    /// The reply to a replay request from the batches the log holds after `after` (as published), or
    /// COMPACTED when it no longer holds the first one asked for (or keeps none), or INTERNAL when the
    /// read failed.
    public mutating func replayReply(to identity: [UInt8], after: UInt64, requestID: UInt64,
                                     stored: Result<[[UInt8]], any Error>) -> [CoordinatorAction] {
        let envelope = replayEnvelope(after: after, requestID: requestID, stored: stored)
        if case .replay? = envelope.body {
            return gather(counted([.count(.replayServed), .reply(routingID: identity, envelope)]))
        }
        return gather([.reply(routingID: identity, envelope)])
    }

    private func replayEnvelope(after: UInt64, requestID: UInt64, stored: Result<[[UInt8]], any Error>) -> Envelope {
        let data: [[UInt8]]
        switch stored {
        case .success(let batches): data = batches
        case .failure(let error):
            return .error(Camsync_V1_Error(code: .internal, message: "the log could not be read: \(error)"),
                          requestID: requestID, term: term)
        }
        var replay = Camsync_V1_Replay()
        replay.lastSequence = committedSequence
        var bytes = 0
        for encoded in data {
            guard let batch = try? Camsync_V1_EventBatch(serializedBytes: encoded),
                  batch.sequence == after + UInt64(replay.batches.count) + 1 else { break }
            if !replay.batches.isEmpty, bytes + encoded.count > Self.replayByteLimit { break }
            bytes += encoded.count
            replay.batches.append(batch)
        }
        guard !replay.batches.isEmpty else {
            let reason = settings.durability == .off
                ? "this coordinator runs without a journal (--durability off)"
                : "the log no longer holds batch \(after + 1)"
            return .error(Camsync_V1_Error(code: .compacted, message: "\(reason): take a snapshot (sequence \(sequence))"),
                          requestID: requestID, term: term)
        }
        return Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: term, body: .replay(replay))
    }
}
