import CamsyncEtcd
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ZeroMQ

/// Carrying out the core's actions, in the order given. An I/O action's outcome goes back to the core
/// as a `StoreAnswer` (`take`: reads at once, the writes' answers when the log posts them,
/// `takeAnswers`), and what the core answers is carried out in turn. The simulator carries the same
/// actions out on its simulated network and store (`SimCoordinator`) and hands its answers to the
/// same `CoordinatorCore.take`.
extension CoordinatorLoop {

    func execute(_ actions: [CoordinatorAction]) throws {
        for action in actions { try execute(action) }
    }

    private func execute(_ action: CoordinatorAction) throws {
        switch action {
        case .reply(let identity, let envelope):
            do {
                _ = try router.send([identity, envelope.serializedBytes()], dontWait: true)
            } catch {
                logger.debug("reply not delivered", metadata: ["error": "\(error)"])
            }
        case .publish(let topic, let publication):
            publisher.publish(topic: topic, publication)
        case .commit(let commit):
            // No frames waiting: nothing for the loop to decide while the disk syncs, so a small
            // turn is written here rather than handed to the writer's thread and back.
            if !((try? router.events)?.contains(.readable) ?? true), let answer = commandLog.commitAtOnce(commit) {
                try take(answer)
            } else {
                let answers = self.answers
                commandLog.submit(commit) { answers.post($0) }
            }
        case .serveReplay(let identity, let requestID, let after, let limit):
            let stored = Result<[[UInt8]], any Error> { try commandLog.batches(after: after, limit: limit) }
            if case .failure(let error) = stored {
                logger.error("log read failed", metadata: ["error": "\(error)"])
            }
            try take(.replay(routingID: identity, requestID: requestID, after: after, stored))
        case .writeSnapshot(let snapshot, let keep, let leadership):
            let answers = self.answers
            commandLog.submit(snapshot, keepingCommands: keep, ifLeading: leadership) { answers.post($0) }
        case .rebuildFromLog:
            guard let etcd else { return }
            switch Result(catching: { try etcd.recover() }) {
            case .success(let read): try take(.rebuilt(read.snapshot, read.batches))
            case .failure(let error): try take(.readFailed(StoreFailure(error)))
            }
        case .readLog(let after):
            guard let etcd else { return }
            switch Result(catching: { try etcd.loggedBatches(after: after) }) {
            case .success(let batches): try take(.logRead(batches))
            case .failure(let error): try take(.readFailed(StoreFailure(error)))
            }
        case .resign(let leadership):
            mailbox?.resign(leadership)
        case .listen(let leader):
            guard let leaderPulse else { return }
            if let previous = listeningTo { _ = try? leaderPulse.disconnect(previous) }  // the old leader's pulses waiting go
            listeningTo = nil
            if let endpoint = leader?.eventEndpoint, !endpoint.isEmpty {
                do {
                    // Each coordinator has a key of its own: the leader's address (from its etcd
                    // election key) carries it; one without (coordinators sharing a pair) is ours.
                    if let key = leader?.publicKey, !key.isEmpty, settings.security != nil { try leaderPulse.set(.curveServerKey(key)) }
                    try leaderPulse.connect(endpoint)
                    listeningTo = endpoint
                } catch {
                    logger.warning("cannot listen to the leader's pulse", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
                }
            }
        case .revokeLease(let lease):
            revoke?(lease)
        case .dropConnection(let connection):
            ZMQConnection.drop(descriptor: connection.descriptor)
        case .suspendKey(let key, let milliseconds):
            zap?.suspend(key: key, for: .milliseconds(milliseconds))
        case .count(let metric):
            metrics.record(metric)
            if case .role(let leading, _) = metric { mailbox?.setCoreLeads(leading) }
        case .log(let entry):
            let metadata = entry.metadata.mapValues { Logger.MetadataValue.string($0) }
            switch entry.level {
            case .info: logger.info("\(entry.message)", metadata: metadata)
            case .warning: logger.warning("\(entry.message)", metadata: metadata)
            case .error: logger.error("\(entry.message)", metadata: metadata)
            }
        case .stop(let reason):
            throw CoordinatorLoopStopped(reason: reason)
        }
    }
}

/// The core asked to stop serving (fail-stop).
struct CoordinatorLoopStopped: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
