import CamsyncEtcd
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ZeroMQ

/// Carrying out the core's actions. Replies and publications wait for the end of the turn: group commit
/// first, then replies, then publications, then maybe a snapshot (the write-ahead contract of
/// `CoordinatorAction`).
extension CoordinatorLoop {

    func execute(_ actions: [CoordinatorAction]) throws {
        for action in actions {
            switch action {
            case .reply(let identity, let envelope): pendingReplies.append((identity, envelope))
            case .append(let entry): pendingEntries.append(entry)
            case .publish(let topic, let envelope): pendingPublications.append((topic, envelope))
            case .serveReplay(let identity, let requestID, let after, let limit):
                let stored = Result<[[UInt8]], any Error> { try commandLog.batches(after: after, limit: limit) }
                if case .failure(let error) = stored {
                    logger.error("journal read failed", metadata: ["error": "\(error)"])
                }
                try execute(core.replayReply(to: identity, after: after, requestID: requestID, stored: stored))
            case .writeSnapshot(let snapshot, let keep):
                do {
                    try commandLog.writeSnapshot(snapshot, keepingCommands: keep)
                } catch where ha != nil {
                    // HA: a snapshot is an optimisation; only a lost leadership matters here.
                    logger.warning("snapshot not written to etcd", metadata: ["error": "\(error)"])
                    if let ha, let etcd = error as? EtcdError, etcd.code == .notLeader {
                        stepDown(ha, reason: Self.describe(etcd), tellSupervisor: true)
                    }
                }
            case .dropConnection(let connection, let delay):
                routesToDrop.append((connection.descriptor, Clock.monotonicMilliseconds() + delay))
            case .suspendKey(let key, let milliseconds):
                zap?.suspend(key: key, for: .milliseconds(milliseconds))
            case .count(let metric): metrics.record(metric)
            case .log(let entry):
                let metadata = entry.metadata.mapValues { Logger.MetadataValue.string($0) }
                switch entry.level {
                case .info: logger.info("\(entry.message)", metadata: metadata)
                case .warning: logger.warning("\(entry.message)", metadata: metadata)
                case .error: logger.error("\(entry.message)", metadata: metadata)
                }
            }
        }
    }

    /// Group commit, then replies, then publications, then maybe a snapshot.
    func finishTurn() throws {
        let entries = pendingEntries.count
        if entries > 0 {
            do {
                try commandLog.append(pendingEntries)
                pendingEntries.removeAll(keepingCapacity: true)
            } catch where ha != nil {
                // HA: no ack without a durable log. Nothing of this turn leaves; its requests are
                // answered NOT_LEADER (retried with the same ids at the next leader, K5).
                abandonTurn(reason: Self.describe(error))
                return
            }
        }
        let afterCommit = core.turnCommitted(entries: entries)
        for (identity, envelope) in pendingReplies {
            do {
                _ = try router.send([identity, envelope.serializedBytes()], dontWait: true)
            } catch {
                logger.debug("reply not delivered", metadata: ["error": "\(error)"])
            }
        }
        pendingReplies.removeAll(keepingCapacity: true)
        if !routesToDrop.isEmpty {
            let now = Clock.monotonicMilliseconds()
            for route in routesToDrop where route.due <= now { ZMQConnection.drop(descriptor: route.descriptor) }
            routesToDrop.removeAll { $0.due <= now }
        }
        for (topic, envelope) in pendingPublications {
            _ = try publisher.send([Array(topic.utf8), envelope.serializedBytes()], dontWait: true)
        }
        pendingPublications.removeAll(keepingCapacity: true)
        try execute(afterCommit)
    }

    /// The counters, for log lines.
    func statsMetadata() -> Logger.Metadata {
        let counters = core.counters
        return ["sequence": "\(core.sequence)", "term": "\(core.term)", "accepted": "\(counters.commandsAccepted)",
                "refused": "\(counters.commandsRefused)", "retries": "\(counters.retriesAnswered)",
                "badFrames": "\(counters.badFrames)", "declaredDead": "\(counters.nodesDeclaredDead)"]
    }

    func logStatsWhenDue() {
        let now = Clock.monotonicMilliseconds()
        guard now >= nextStatsLog else { return }
        if nextStatsLog > 0 { logger.info("coordinator stats", metadata: statsMetadata()) }
        nextStatsLog = now + 60_000
    }
}
