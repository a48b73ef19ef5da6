public import CamsyncEtcdModel

/// What the command log (the SQLite journal, etcd, or the simulator's store) answered to an I/O
/// action of the core. The shells carry the actions out differently (the loop on sockets and etcd,
/// the simulator on its scheduled network and store, where answers arrive later); both hand every
/// answer back through `CoordinatorCore.take(_:at:)`, the one place that knows which decision each
/// answer goes to.
public enum StoreAnswer: Sendable {
    /// `commit` of this turn id is durable.
    case committed(UInt64)
    /// `commit` of this turn id was not written.
    case commitFailed(UInt64, StoreFailure)
    /// `writeSnapshot` is durable.
    case snapshotWritten
    /// `writeSnapshot` was not written.
    case snapshotFailed(StoreFailure)
    /// `serveReplay`: the stored batches after `after` (at most the limit asked), or why not.
    case replay(routingID: [UInt8], requestID: UInt64, after: UInt64, Result<[[UInt8]], any Error>)
    /// `rebuildFromLog`: etcd's newest snapshot and the log after it.
    case rebuilt(JournalSnapshot?, [LoggedBatch])
    /// `readLog`: the log after the sequence asked.
    case logRead([LoggedBatch])
    /// `rebuildFromLog` or `readLog` failed.
    case readFailed(StoreFailure)
}

extension CoordinatorCore {
    /// Hands a store's answer to the decision it belongs to.
    public mutating func take(_ answer: StoreAnswer, at time: CoordinatorTime) -> [CoordinatorAction] {
        switch answer {
        case .committed(let id): turnCommitted(id, at: time)
        case .commitFailed(let id, let failure): turnFailed(id, failure, at: time)
        case .snapshotWritten: []
        case .snapshotFailed(let failure): snapshotFailed(failure, at: time)
        case .replay(let routingID, let requestID, let after, let stored):
            replayReply(to: routingID, after: after, requestID: requestID, stored: stored)
        case .rebuilt(let snapshot, let batches): rebuilt(snapshot: snapshot, batches: batches, at: time)
        case .logRead(let batches): logRead(batches, at: time)
        case .readFailed(let failure): storeFailed(failure, at: time)
        }
    }
}
