import CamsyncClient
import CamsyncNode
import CamsyncPolicy
import CamsyncVerbs
import CamsyncWire
import Foundation
import Logging
import ZeroMQ

/// Follows the cluster the way `camsync ctl watch` and a node do — a SUB on the event endpoint, a
/// snapshot on the command endpoint, then batches in order (`ReplicaSync`, the Clone pattern) — on its
/// own thread with its own ZeroMQ context. The coordinator's loop hands it nothing: a slow browser
/// or a slow follower can only fall behind and snapshot again, never delay a claim.
/// After each applied batch it updates the cluster gauges and the web feed.
final class ClusterFollower: @unchecked Sendable {
    let endpoints: @Sendable () -> (commandEndpoint: String, eventEndpoint: String)?
    let feed: WebFeed
    /// The follower's own CURVE keys when the coordinator runs with CURVE (an in-process admin key).
    let curve: ClientCurve?
    let logger: Logger
    private let stopped = ManagedFlag()
    private var thread: Thread?
    /// Silence after which the page shows the coordinator as unreachable.
    static let silenceMilliseconds = 3_000
    /// The longest log the follower replays when it adopts a snapshot (for the why panel's decisions).
    static let replayLimit: UInt64 = 100_000

    init(endpoints: @escaping @Sendable () -> (commandEndpoint: String, eventEndpoint: String)?, feed: WebFeed,
         curve: ClientCurve? = nil, logger: Logger) {
        self.endpoints = endpoints
        self.feed = feed
        self.curve = curve
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "camsync-web-follower"
        self.thread = thread
        thread.start()
    }

    func stop() { stopped.set() }

    private func run() {
        let context: ZMQContext
        do {
            context = try ZMQContext()
        } catch {
            logger.error("web follower: no ZeroMQ context: \(error)")
            return
        }
        var state = FollowState()
        var subscriber: EventSubscriber?
        var client: CoordinatorClient?
        var lastHeard = Date.distantPast
        var resolved = endpoints()
        while resolved == nil, !stopped.isSet {
            Thread.sleep(forTimeInterval: 0.05)
            resolved = endpoints()
        }
        guard let own = resolved else { return }
        // What it follows: its own coordinator, or (HA, SPEC K6) the leader a standby named.
        var target = own
        var lastProbe = Date.distantPast
        func retarget(_ endpoints: (commandEndpoint: String, eventEndpoint: String), why: String) {
            logger.info("web follower: following \(endpoints.commandEndpoint) (\(why))")
            target = endpoints
            subscriber?.close()
            subscriber = nil
            client?.close()
            client = nil
            state = FollowState()
            lastHeard = Date()
        }
        while !stopped.isSet {
            do {
                if subscriber == nil {
                    subscriber = try EventSubscriber(context: context, endpoint: target.eventEndpoint, topics: [EventTopic.everyBatch, EventTopic.heartbeat], curve: curve)
                }
                let silent = Date().timeIntervalSince(lastHeard) * 1000 > Double(Self.silenceMilliseconds)
                // A standby publishes nothing: when silent, ask anyway (at most once a silence period),
                // and its NOT_LEADER names the leader to follow.
                let probe = silent && Date().timeIntervalSince(lastProbe) * 1000 > Double(Self.silenceMilliseconds)
                if state.wantsSnapshot, state.subscriptionLive || probe {
                    lastProbe = Date()
                    if client == nil {
                        client = try CoordinatorClient(context: context, endpoint: target.commandEndpoint, curve: curve)
                    }
                    do {
                        let snapshot = try client!.snapshot(timeoutMilliseconds: 2_000)
                        // The why panel's decisions: the log replayed up to the snapshot (bounded; without it,
                        // decisions before the snapshot are read from the state).
                        let replay = snapshot.sequence <= Self.replayLimit
                            ? try? client!.replayLog(snapshot: snapshot, timeoutMilliseconds: 5_000) : nil
                        state.adopt(snapshot, replayed: replay.flatMap { $0.sequence == snapshot.sequence ? $0 : nil }, feed: feed)
                    } catch ClientError.refused(let refusal) where refusal.code == .notLeader {
                        if let leader = refusal.leader, leader.commandEndpoint != target.commandEndpoint {
                            retarget((leader.commandEndpoint, leader.eventEndpoint), why: "the leader, term \(leader.term)")
                            continue
                        }
                    } catch {
                        logger.debug("web follower: snapshot failed", metadata: ["error": "\(error)"])
                        client?.close()
                        client = nil
                    }
                }
                if silent, target != own, Date().timeIntervalSince(lastHeard) * 1000 > Double(2 * Self.silenceMilliseconds) {
                    // The leader followed went quiet: ask our own coordinator who leads now.
                    retarget(own, why: "the leader followed went silent")
                    continue
                }
                guard let (_, envelope) = try subscriber!.next(timeoutMilliseconds: 200) else {
                    if silent { feed.setFollowing(false) }
                    continue
                }
                lastHeard = Date()
                feed.setFollowing(true)
                state.subscriptionLive = true
                state.receive(envelope, feed: feed)
            } catch {
                logger.warning("web follower: \(error)")
                subscriber?.close()
                subscriber = nil
                state.subscriptionLive = false
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        subscriber?.close()
        client?.close()
    }
}

/// The follower's replica and what it publishes; no sockets.
struct FollowState {
    var replica = ReplicaSync()
    var gauges = ClusterGauges()
    var wantsSnapshot = true
    var subscriptionLive = false
    /// Timeline entries of batches received but not yet applied, by sequence.
    var pendingEntries: [UInt64: WebFeed.TimelineEntry] = [:]
    /// Where the ledger's decisions start: 0 when the whole log was replayed (see `LogReplay.startedAt`).
    var ledgerStartsAt: UInt64 = 0
    /// The commands since the ledger's start, for the history slider.
    var history = CommandHistory(settings: PolicySettings())
    /// A snapshot was adopted: the web view rebuilds every node at the next publication.
    var rebuildView = true

    mutating func adopt(_ snapshot: CoordinatorClient.Snapshot, replayed: LogReplay?, feed: WebFeed) {
        replica.ledger = replayed?.ledger ?? DecisionLedger()
        ledgerStartsAt = replayed?.startedAt ?? snapshot.sequence
        history = replayed?.history
            ?? CommandHistory(settings: snapshot.settings, base: snapshot.state, baseSequence: snapshot.sequence)
        let outcome = replica.receiveSnapshot(sequence: snapshot.sequence, term: snapshot.term, state: snapshot.state,
                                              settings: snapshot.settings)
        wantsSnapshot = false
        rebuildView = true
        let covered = replica.coveredBySnapshot.compactMap { pendingEntries[$0.sequence] }
        handle(outcome, alsoShowing: covered, feed: feed)
    }

    mutating func receive(_ envelope: Envelope, feed: WebFeed) {
        switch envelope.body {
        case .eventBatch(let wire)?:
            guard let command = try? wire.domainCommand(), let events = try? wire.domainEvents() else { return }
            pendingEntries[wire.sequence] = WebFeed.TimelineEntry(
                sequence: wire.sequence, timeMs: Int64(wire.timeMs),
                node: wire.originNode.isEmpty ? "coordinator" : wire.originNode,
                command: command.words.description, events: events.map(\.words))
            let batch = PublishedBatch(sequence: wire.sequence, term: wire.term, time: wire.time, command: command, events: events)
            handle(replica.receive(batch), feed: feed)
        case .coordinatorHeartbeat(let heartbeat)?:
            if replica.isBehind(coordinatorTerm: heartbeat.term, lastSequence: heartbeat.lastSequence) {
                replica.resync()
                wantsSnapshot = true
            }
        default:
            break
        }
    }

    private mutating func handle(_ outcome: ReplicaSync.Outcome, alsoShowing covered: [WebFeed.TimelineEntry] = [],
                                 feed: WebFeed) {
        switch outcome {
        case .nothing:
            return
        case .needSnapshot:
            wantsSnapshot = true
        case .applied(let batches):
            for batch in batches {
                history.append(sequence: batch.sequence, time: batch.time, command: batch.command,
                               stateAfter: batch.sequence == replica.sequence ? replica.state : nil)
            }
            let entries = covered + batches.compactMap { pendingEntries[$0.sequence] }
            pendingEntries = pendingEntries.filter { $0.key > replica.sequence }
            let named = rebuildView ? nil : batches.reduce(into: Set<NodeID>()) { $0.formUnion(NamedNodes.of($1.command, $1.events)) }
            rebuildView = false
            let figures = feed.publish(replica.engine, sequence: replica.sequence, term: replica.term, nodes: named, entries: entries,
                                       replay: LogReplay(engine: replica.engine, ledger: replica.ledger ?? DecisionLedger(),
                                                         sequence: replica.sequence, startedAt: ledgerStartsAt, history: history))
            gauges.update(figures.totals, sessions: figures.sessions, sequence: replica.sequence)
        }
    }
}

/// A flag set by one thread and read by another.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
