import CamsyncPolicy
import CamsyncWire
import Foundation

/// What a client needs to follow the cluster: the snapshot (with the shell's facts) and replays of
/// published batches from the journal.
extension CoordinatorLoop {

    /// Most batches one replay reply carries, and about how many bytes.
    static let replayBatchLimit = 1000
    static let replayByteLimit = 512 * 1024

    func snapshotEnvelope(requestID: UInt64, now: Int64) -> Envelope {
        var snapshot = Envelope.snapshot(core.state, sequence: core.sequence, term: core.term,
                                         requestID: requestID, settings: settings.policy)
        guard case .snapshot(var body)? = snapshot.body else { return snapshot }
        body.liveness = core.silence(at: now).map { node, silent in
            var entry = Camsync_V1_NodeLiveness()
            entry.node = node.rawValue
            entry.silentMs = silent
            return entry
        }
        body.livenessSettings = livenessSettings
        body.counters = counters
        snapshot.body = .snapshot(body)
        return snapshot
    }

    var livenessSettings: Camsync_V1_LivenessSettings {
        var wire = Camsync_V1_LivenessSettings()
        wire.heartbeatIntervalMs = UInt32(clamping: settings.heartbeatIntervalMilliseconds)
        wire.liveness = UInt32(clamping: settings.liveness)
        return wire
    }

    var counters: Camsync_V1_CoordinatorCounters {
        var wire = Camsync_V1_CoordinatorCounters()
        wire.commandsAccepted = UInt64(metrics.commandsAccepted)
        wire.commandsRefused = UInt64(metrics.commandsRefused)
        wire.retriesAnswered = UInt64(metrics.retriesAnswered)
        wire.nodesDeclaredDead = UInt64(metrics.nodesDeclaredDead)
        wire.replaysServed = UInt64(metrics.replaysServed)
        wire.badFrames = metrics.badFramesByReason.sorted { $0.key < $1.key }.map { reason, count in
            var entry = Camsync_V1_BadFrameCount()
            entry.reason = reason
            entry.count = UInt64(count)
            return entry
        }
        return wire
    }

    /// Batches after `request.after_sequence` as they were published, from the journal; COMPACTED
    /// when the journal no longer holds the first one asked for (or there is no journal).
    func replayEnvelope(_ request: Camsync_V1_ReplayRequest, requestID: UInt64) -> Envelope {
        let after = request.afterSequence
        let committed = committedSequence
        var replay = Camsync_V1_Replay()
        replay.lastSequence = committed
        if after >= committed {
            metrics.replayServed()
            return Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: core.term, body: .replay(replay))
        }
        let limit = request.maxBatches == 0 ? Self.replayBatchLimit : min(Int(request.maxBatches), Self.replayBatchLimit)
        let stored: [[UInt8]]
        do {
            stored = try journal.batches(after: after, limit: limit)
        } catch {
            logger.error("journal read failed", metadata: ["error": "\(error)"])
            return .error(Camsync_V1_Error(code: .internal, message: "the journal could not be read: \(error)"),
                          requestID: requestID, term: core.term)
        }
        var bytes = 0
        for data in stored {
            guard let batch = try? Camsync_V1_EventBatch(serializedBytes: data),
                  batch.sequence == after + UInt64(replay.batches.count) + 1 else { break }
            if !replay.batches.isEmpty, bytes + data.count > Self.replayByteLimit { break }
            bytes += data.count
            replay.batches.append(batch)
        }
        guard !replay.batches.isEmpty else {
            let reason = settings.durability == .off
                ? "this coordinator runs without a journal (--durability off)"
                : "the journal no longer holds batch \(after + 1)"
            return .error(Camsync_V1_Error(code: .compacted, message: "\(reason): take a snapshot (sequence \(core.sequence))"),
                          requestID: requestID, term: core.term)
        }
        metrics.replayServed()
        return Envelope(sender: Envelope.coordinatorSender, requestID: requestID, term: core.term, body: .replay(replay))
    }
}
