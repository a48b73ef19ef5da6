import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ZeroMQ

/// The end of a turn: group commit, then replies, then publications, then maybe a snapshot (K3).
extension CoordinatorLoop {

    /// Group commit, then replies, then publications, then maybe a snapshot.
    func finishTurn() throws {
        if !pendingEntries.isEmpty {
            try journal.append(pendingEntries)
            metrics.groupCommit(size: pendingEntries.count)
            pendingEntries.removeAll(keepingCapacity: true)
        }
        committedSequence = core.sequence
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
        if settings.durability != .off, core.sequence >= lastSnapshotSequence + settings.snapshotEvery {
            try journal.writeSnapshot(JournalSnapshot(sequence: core.sequence, term: core.term,
                                                      state: WireCodec.encode(core.state)),
                                      keepingCommands: UInt64(settings.retryWindow))
            lastSnapshotSequence = core.sequence
        }
    }
}
