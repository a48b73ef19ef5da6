import CamsyncEtcd
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The real world of `CoordinatorWorld`: the ROUTER and the pulse SUB, the publisher, the journal or
/// etcd, the process's clocks. `CoordinatorTurn` decides what is taken and carried out; this only
/// does it. Log writes and reads leave the loop's thread and post their answers to `answers`.
extension CoordinatorLoop: CoordinatorWorld {

    func now() -> CoordinatorTime { Self.now() }

    func takeNews() -> [LeadershipEvent] { mailbox?.take() ?? [] }

    func nextAnswer() -> StoreAnswer? {
        if answersAtHand.isEmpty { answersAtHand = answers.take().reversed() }
        return answersAtHand.popLast()
    }

    func nextFrame() throws -> InboundFrame? {
        guard let message = try router.receive(dontWait: true) else { return nil }
        return InboundFrame(frames: message.frames, userID: message.userID,
                            connection: message.connectionDescriptor.map(ConnectionHandle.init))
    }

    func nextPulse() throws -> [[UInt8]]? { try leaderPulse?.receive(dontWait: true)?.frames }

    var isHalted: Bool { false }

    func answerCarriedOut(_ answer: StoreAnswer) {}

    func send(_ envelope: Envelope, to routingID: [UInt8]) {
        do {
            _ = try router.send([routingID, envelope.serializedBytes()], dontWait: true)
        } catch {
            logger.debug("reply not delivered", metadata: ["error": "\(error)"])
        }
    }

    func send(_ shared: Publication, answering requestID: UInt64, to routingID: [UInt8]) {
        _ = try? router.send([routingID, shared.bytes(answering: requestID)], dontWait: true)
    }

    func publish(topic: String, _ publication: Publication) {
        publisher.publish(topic: topic, publication)
    }

    func push(_ publication: Publication, topic: String, to routingID: [UInt8]) {
        // A route nobody holds (the node is away) drops it: ROUTER_MANDATORY is off.
        _ = try? router.send([routingID, Array(topic.utf8), publication.bytes], dontWait: true)
    }

    func commit(_ commit: TurnCommit) -> StoreAnswer? {
        // No frames waiting: nothing for the loop to decide while the disk syncs, so a small turn is
        // written here rather than handed to the writer's thread and back.
        if !((try? router.events)?.contains(.readable) ?? true), let answer = commandLog.commitAtOnce(commit) {
            return answer
        }
        let answers = self.answers
        commandLog.submit(commit) { answers.post($0) }
        return nil
    }

    func write(_ snapshot: JournalSnapshot, keepingCommands keep: UInt64, ifLeading leadership: EtcdLeadership?) {
        let answers = self.answers
        commandLog.submit(snapshot, keepingCommands: keep, ifLeading: leadership) { answers.post($0) }
    }

    func read(_ read: LogRead) {
        let answers = self.answers
        let logger = self.logger
        commandLog.read(read) { answer in
            if case .replay(_, _, _, .failure(let error)) = answer {
                logger.error("log read failed", metadata: ["error": "\(error)"])
            }
            answers.post(answer)
        }
    }

    func resign(_ leadership: EtcdLeadership) { mailbox?.resign(leadership) }

    func listen(toLeader leader: Camsync_V1_CoordinatorAddress?) {
        guard let leaderPulse else { return }
        if let previous = listeningTo { _ = try? leaderPulse.disconnect(previous) }  // the old leader's pulses waiting go
        listeningTo = nil
        guard let endpoint = leader?.eventEndpoint, !endpoint.isEmpty else { return }
        do {
            // Each coordinator has a key of its own: the leader's address (from its etcd election key)
            // carries it; one without (coordinators sharing a pair) is ours.
            if let key = leader?.publicKey, !key.isEmpty, settings.security != nil { try leaderPulse.set(.curveServerKey(key)) }
            try leaderPulse.connect(endpoint)
            listeningTo = endpoint
        } catch {
            logger.warning("cannot listen to the leader's pulse", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
        }
    }

    func revoke(lease: Int64) { revoke?(lease) }

    func drop(_ connection: ConnectionHandle) { ZMQConnection.drop(descriptor: connection.descriptor) }

    func suspend(key: String, milliseconds: Int64) { zap?.suspend(key: key, for: .milliseconds(milliseconds)) }

    func count(_ metric: CoordinatorMetric) {
        metrics.record(metric)
        if case .role(let leading, _) = metric { mailbox?.setCoreLeads(leading) }
    }

    func log(_ entry: CoordinatorLogEntry) {
        let metadata = entry.metadata.mapValues { Logger.MetadataValue.string($0) }
        switch entry.level {
        case .info: logger.info("\(entry.message)", metadata: metadata)
        case .warning: logger.warning("\(entry.message)", metadata: metadata)
        case .error: logger.error("\(entry.message)", metadata: metadata)
        }
    }

    func stop(_ reason: String) throws { throw CoordinatorLoopStopped(reason: reason) }
}

/// The core asked to stop serving (fail-stop).
struct CoordinatorLoopStopped: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
