import CamsyncPolicy
import CamsyncWire

/// The published stream: batches into the replica (Clone pattern), heartbeats, the fence and app-facing logs.
extension NodeSession {

    /// One message pushed on a connection to a coordinator (topic frame, then an `Envelope`). The node
    /// hears whatever any coordinator pushes (K6): what comes under a lower term than one seen is
    /// ignored, not even counted as the coordinator being heard.
    public mutating func receivePublication(_ frames: [[UInt8]], now: NodeTime) -> [NodeAction] {
        enter(now)
        let envelope = frames.count == 2 ? try? Envelope.decode(frames[1]) : nil
        if let envelope, isStale(term: Self.publishedTerm(envelope), "publication") { return leave() }
        // A heartbeat naming a coordinator this node does not believe is not heard at all: neither
        // its term (however high) nor its leadership nor a sign of life.
        if case .coordinatorHeartbeat(let heartbeat)? = envelope?.body, heartbeat.hasCoordinator,
           !believes(heartbeat.coordinator, "heartbeat") { return leave() }
        // The leader a heartbeat names is followed first, so that nothing below goes to another one.
        if case .coordinatorHeartbeat(let heartbeat)? = envelope?.body, heartbeat.hasCoordinator {
            var leader = heartbeat.coordinator
            if leader.term == 0 { leader.term = heartbeat.term }
            follow(leader, namedBy: .itself)
        }
        heardFromCoordinator()
        if subscription == .opening {
            subscription = .live
            if catchUp == .snapshotWanted { requestSnapshot() }
        } else if catchUp == .snapshotWanted, case .coordinatorHeartbeat? = envelope?.body {
            requestSnapshot()   // a refused snapshot request, asked again (`handleSnapshotReply`)
        }
        guard let envelope else { return leave() }
        switch envelope.body {
        case .eventBatch(let wire)?:
            guard let batch = try? PublishedBatch(wire: wire) else {
                log(.warning, "undecodable event batch", ["sequence": "\(wire.sequence)"])
                return leave()
            }
            // A new leader's batches continue the sequence under its (higher) term (K7).
            noteTerm(wire.term)
            if !holdForReplay(batch) { handle(replica.receive(batch)) }
        case .coordinatorHeartbeat(let heartbeat)?:
            noteTerm(heartbeat.term)
            // A full replica's lag is the heartbeat's; a group's is its bookmark's (the last sequence is
            // usually another group's batch, which it never holds).
            if replica.phase == .synced, replica.group == nil {
                emit(.count(.replicaLag(heartbeat.lastSequence > replica.sequence ? heartbeat.lastSequence - replica.sequence : 0)))
            }
            if replica.phase == .synced, replica.group == nil, heartbeat.lastSequence > replica.sequence {
                if !replayRequested { requestReplay("behind the coordinator: have \(replica.sequence), it has \(heartbeat.lastSequence)") }
            } else if replica.isBehind(coordinatorTerm: heartbeat.term, lastSequence: heartbeat.lastSequence) {
                log(.info, "ahead of a coordinator of another term (it lost its journal): resync", [
                    "have": "\(replica.sequence)", "coordinator": "\(heartbeat.lastSequence)"])
                replica.resync()
                requestSnapshot()
            }
        case .groupBookmark(let bookmark)?:
            // A group's last batch, every interval: a lost last batch of an idle group shows here.
            noteTerm(envelope.term)
            guard let group = replica.group, replica.phase == .synced else { break }
            if bookmark.group != group.rawValue {
                // The feed carries the bookmarks of the group the node is in. One of another group
                // whose last batch is newer than anything the replica holds means a move by a batch
                // never heard; one no newer was pushed before the move the replica already holds (by
                // a previous leader, on another connection, overtaken by this leader's snapshot): stale.
                guard bookmark.sequence > replica.sequence else { break }
                log(.info, "the feed's bookmark is of another group: moved without hearing it; the group's snapshot", [
                    "held": "\(group)", "bookmark": "\(bookmark.group)"])
                emit(.count(.movedUnheard(held: group)))
                replica.resync()
                requestSnapshot()
            } else {
                emit(.count(.replicaLag(bookmark.sequence > replica.groupSequence ? bookmark.sequence - replica.groupSequence : 0)))
                if bookmark.sequence > replica.groupSequence, !replayRequested {
                    requestReplay("behind the group: have \(replica.groupSequence), its last batch is \(bookmark.sequence)")
                }
            }
        default:
            break
        }
        return leave()
    }

    /// The term a publication speaks under: its batch's or heartbeat's, else the envelope's.
    static func publishedTerm(_ envelope: Envelope) -> UInt64 {
        switch envelope.body {
        case .eventBatch(let batch)?: batch.term
        case .coordinatorHeartbeat(let heartbeat)?: heartbeat.term
        default: envelope.term
        }
    }

    /// A new coordinator term: another coordinator leads, or the coordinator restarted from its
    /// journal. Neither is a restart of the cluster (K7): the new leader holds every registration and
    /// every acknowledged command, so the replica and the registration stay, and pending requests
    /// are re-sent with their ids. What cannot continue shows by itself: a gap in the batches or a
    /// heartbeat ahead of the replica (snapshot), a replica ahead of a coordinator that lost its
    /// journal (snapshot, which then shows this node unknown: rejoin), a declared death (rejoin).
    mutating func noteTerm(_ term: UInt64) {
        let first = knownTerm == 0
        guard leader.noteTerm(term), !first else { return }
        emit(.count(.termChanged))
        log(.info, "new coordinator term: the replica and the registration carry over (K7)", [
            "term": "\(term)", "sequence": "\(replica.sequence)"])
    }

    mutating func handle(_ outcome: ReplicaSync.Outcome) {
        switch outcome {
        case .nothing:
            break
        case .needSnapshot(let reason):
            log(.info, "resync", ["reason": "\(reason)"])
            requestSnapshot()
        case .applied(let batches):
            for batch in batches { applied(batch) }
            refreshAssertions()
            attachIfConfigured()
            if let group = replica.group, replica.phase == .synced, replica.state.group(of: id) != group {
                // Attached, detached or moved: the new group's part of the state, and its topic.
                log(.info, "moved to another device group: its snapshot", [
                    "from": "\(group)", "to": "\(replica.state.group(of: id))"])
                replica.resync()
                requestSnapshot()
            }
        }
    }

    mutating func applied(_ batch: PublishedBatch) {
        for event in batch.events {
            if let decision = fence.observe(event) { record(decision, sequence: batch.sequence) }
            switch event {
            case .nodeJoined(let node, _), .nodeRejoined(let node, _), .nodeLeft(let node, _):
                // Our device (re)joined: attach again, as a display plugged into a rebooted iPad would.
                // Or it left, which detached us: attach once it is back (refused while it is away, the
                // attach is asked again at the next snapshot or batch: `handleReply`).
                if case .display(let display) = settings.config.registration.attributes, display.attachedTo == node {
                    if registered { membership = .registered(attachAsked: false) }
                    detachedByRequest = false
                }
            case .displayDetached(let display, let device) where display == id:
                detachedByRequest = !batch.events.contains { if case .nodeLeft(device, _) = $0 { true } else { false } }
            case .displayAttached(let display, _) where display == id:
                detachedByRequest = false
            default:
                break
            }
            if case .nodeLeft(let node, let reason) = event, node == id, reason == .declaredDead {
                log(.warning, "this node was declared dead: rejoining")
                join(reason: "declared dead")
            }
        }
        for event in AppFacingEvent.from(batch.events, sequence: batch.sequence, device: id) { record(event) }
    }

    /// K2: remember what this node runs, from states in which it is alive.
    mutating func refreshAssertions() {
        guard replica.phase == .synced, replica.state.nodes[id]?.alive == true else { return }
        // The engine's index: in proportion to this device's running apps, not to its installed
        // ones or to the cluster (each batch runs this).
        assertions = replica.engine.runningApps(of: id).compactMap { replica.state.apps[$0] }
            .map { app in
                AppAssertion(bundleID: app.id.bundleID, scene: app.scene, session: app.session?.configuration,
                             sessionWantsToRun: app.session?.wantsToRun ?? false, pip: app.pip?.setup)
            }
    }

    mutating func record(_ event: AppFacingEvent) {
        appEvents.append(event)
        emit(.appendHistory(NodeHistoryEntry(app: event, node: id, at: now.wall)))
        log(.notice, "\(event.description)")
    }

    mutating func record(_ decision: FenceDecision, sequence: UInt64? = nil) {
        let entry = FenceRecord(node: id, decision: decision, sequence: sequence ?? replica.sequence, at: now.wall)
        fenceLog.append(entry)
        emit(.appendHistory(.fence(record: entry)))
        if case .refusedStale = decision.kind {
            emit(.count(.fenceRefused))
            log(.warning, "\(entry.description)")
        } else {
            log(.info, "\(entry.description)")
        }
    }

    mutating func heardFromCoordinator() {
        lastHeardFromCoordinator = now.monotonic
        if contact != .heard {
            // Back (K7): the replica continues if it can. What this node missed while it could not
            // hear shows in the next heartbeat (snapshot), and a death declared meanwhile in a batch
            // or in that snapshot (rejoin, K2).
            contact = .heard
            log(.info, "coordinator is back")
        }
    }
}
