import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ

/// The published stream: batches into the replica (Clone pattern), heartbeats, the fence and app-facing logs.
extension NodeLoop {

    func drainSubscriber() throws {
        while let message = try subscriber.receive(dontWait: true) {
            heardFromCoordinator()
            if !subscriptionLive {
                subscriptionLive = true
                if snapshotWanted { requestSnapshot() }
            }
            guard message.frames.count == 2, let envelope = try? Envelope.decode(message.frames[1]) else { continue }
            switch envelope.body {
            case .eventBatch(let wire)?:
                guard let command = try? wire.domainCommand(), let events = try? wire.domainEvents() else {
                    logger.warning("undecodable event batch", metadata: ["sequence": "\(wire.sequence)"])
                    continue
                }
                let batch = PublishedBatch(sequence: wire.sequence, term: wire.term, time: wire.time,
                                           command: command, events: events)
                handle(replica.receive(batch))
            case .coordinatorHeartbeat(let heartbeat)?:
                if noteTerm(heartbeat.term) { continue }
                if replica.isBehind(coordinatorTerm: heartbeat.term, lastSequence: heartbeat.lastSequence) {
                    logger.info("behind the coordinator: resync", metadata: [
                        "node": "\(id)", "have": "\(replica.sequence)", "coordinator": "\(heartbeat.lastSequence)"])
                    replica.resync()
                    requestSnapshot()
                }
            default:
                continue
            }
        }
    }

    /// A new coordinator term means the coordinator restarted: rejoin (K2). Returns true if it rejoined.
    @discardableResult
    func noteTerm(_ term: UInt64) -> Bool {
        guard term > knownTerm else { return false }
        let first = knownTerm == 0
        knownTerm = term
        if !first {
            join(reason: "coordinator term \(term)", resync: false)
            return true
        }
        return false
    }

    func handle(_ outcome: ReplicaSync.Outcome) {
        switch outcome {
        case .nothing:
            break
        case .needSnapshot(let reason):
            logger.info("resync", metadata: ["node": "\(id)", "reason": "\(reason)"])
            requestSnapshot()
        case .applied(let batches):
            for batch in batches { applied(batch) }
            refreshAssertions()
            attachIfConfigured()
        }
    }

    func applied(_ batch: PublishedBatch) {
        for event in batch.events {
            if let decision = fence.observe(event) { record(decision, sequence: batch.sequence) }
            switch event {
            case .nodeJoined(let node, _), .nodeRejoined(let node, _):
                // Our device (re)joined: attach again, as a display plugged into a rebooted iPad would.
                if case .display(let display) = settings.config.registration.attributes, display.attachedTo == node {
                    attachRequested = false
                }
            default:
                break
            }
            if case .nodeLeft(let node, let reason) = event, node == id, reason == .declaredDead {
                logger.warning("this node was declared dead: rejoining", metadata: ["node": "\(id)"])
                join(reason: "declared dead")
            }
        }
        for event in AppFacingEvent.from(batch.events, sequence: batch.sequence, device: id) { record(event) }
    }

    /// K2: remember what this node runs, from states in which it is alive.
    func refreshAssertions() {
        guard replica.phase == .synced, replica.state.nodes[id]?.alive == true else { return }
        assertions = replica.state.apps.values.filter { $0.id.device == id && $0.scene.isRunning }
            .sorted { $0.id < $1.id }
            .map { app in
                AppAssertion(bundleID: app.id.bundleID, scene: app.scene, session: app.session?.configuration,
                             sessionWantsToRun: app.session?.wantsToRun ?? false, pip: app.pip?.setup)
            }
    }

    func record(_ event: AppFacingEvent) {
        appEvents.append(event)
        history?.append(NodeHistoryEntry(app: event, node: id, at: Instant(milliseconds: Clock.wallMilliseconds())))
        logger.notice("\(event.description)", metadata: ["node": "\(id)"])
    }

    func record(_ decision: FenceDecision, sequence: UInt64? = nil) {
        let entry = FenceRecord(node: id, decision: decision, sequence: sequence ?? replica.sequence,
                                at: Instant(milliseconds: Clock.wallMilliseconds()))
        fenceLog.append(entry)
        history?.append(.fence(record: entry))
        if case .refusedStale = decision.kind {
            logger.warning("\(entry.description)", metadata: ["node": "\(id)"])
        } else {
            logger.info("\(entry.description)", metadata: ["node": "\(id)"])
        }
    }

    func heardFromCoordinator() {
        lastHeardFromCoordinator = Clock.monotonicMilliseconds()
        if coordinatorSilent {
            coordinatorSilent = false
            reconnectDelay = settings.heartbeatIntervalMilliseconds
            logger.info("coordinator is back", metadata: ["node": "\(id)"])
            join(reason: "coordinator back")
        }
    }
}
