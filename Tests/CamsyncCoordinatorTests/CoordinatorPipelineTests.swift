import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// The pipelined log (`TurnCommit`): several turns in flight, answered in any order, released in
/// commit order; a turn sent too early is sent again; a failed one takes every later one with it.
@Suite("CoordinatorCore: turns in flight, released in commit order")
struct CoordinatorPipelineTests {
    typealias R = CoordinatorReceiveTests
    typealias L = CoordinatorLeadershipTests

    static func node(_ index: Int) -> (id: NodeID, route: [UInt8]) {
        let id = NodeID("ipad-\(index)")
        return (id, Array(id.rawValue.utf8))
    }

    /// One turn: `node` registers with `requestID`; the turn's commit.
    static func registerTurn(_ core: inout CoordinatorCore, _ index: Int, requestID: UInt64, at time: Int64) -> TurnCommit? {
        let (id, route) = node(index)
        _ = core.receive(R.frame(R.register(id, requestID: requestID), route: route), at: R.at(time))
        return commit(in: core.endTurn(at: R.at(time)))
    }

    static func commit(in actions: [CoordinatorAction]) -> TurnCommit? {
        for case .commit(let commit) in actions { return commit }
        return nil
    }

    static func acks(_ actions: [CoordinatorAction]) -> [UInt64] {
        R.replies(actions).compactMap { if case .ack(let ack)? = $0.body { ack.sequence } else { nil } }
    }

    static func published(_ actions: [CoordinatorAction]) -> [UInt64] {
        actions.compactMap { if case .publish(EventTopic.everyBatch, let publication) = $0, case .eventBatch(let batch)? = publication.envelope.body { batch.sequence } else { nil } }
    }

    @Test("turns go to the log without waiting; each names the turn it follows while that one is in flight")
    func turnsInFlight() throws {
        var core = R.core()
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 1))
        let second = try #require(Self.registerTurn(&core, 2, requestID: 2, at: 2))
        #expect(first.follows == nil)
        #expect(second.follows == first.lastSequence)
        #expect(first.id != second.id)
        #expect(core.committedSequence == 0)
        _ = core.turnCommitted(first.id, at: R.at(3))
        _ = core.turnCommitted(second.id, at: R.at(3))
        let third = try #require(Self.registerTurn(&core, 3, requestID: 3, at: 4))
        #expect(third.follows == nil, "every earlier turn is durable")
    }

    @Test("a later turn taken first waits: replies and publications leave in commit order")
    func commitOrder() throws {
        var core = R.core()
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 1))
        let second = try #require(Self.registerTurn(&core, 2, requestID: 2, at: 2))
        let early = core.turnCommitted(second.id, at: R.at(3))
        #expect(R.replies(early).isEmpty && Self.published(early).isEmpty, "turn 2 is durable, turn 1 is not yet")
        #expect(core.committedSequence == 0)
        let both = core.turnCommitted(first.id, at: R.at(4))
        #expect(Self.acks(both) == [1, 2])
        #expect(Self.published(both) == [1, 2])
        let lastAck = try #require(both.lastIndex { if case .reply = $0 { true } else { false } })
        let firstPublication = try #require(both.firstIndex { if case .publish = $0 { true } else { false } })
        #expect(lastAck < firstPublication || Self.published(Array(both[..<lastAck])) == [1],
                "each turn's replies, then its publications")
        #expect(core.committedSequence == 2)
        #expect(core.turnCommitted(first.id, at: R.at(5)).isEmpty, "an answer twice is ignored")
    }

    @Test("a core copied in the middle of a turn is a value: each copy commits and publishes its own commands")
    func copiedMidTurn() throws {
        var core = R.core()
        let (first, route) = Self.node(1)
        _ = core.receive(R.frame(R.register(first, requestID: 1), route: route), at: R.at(1))
        var copy = core
        let (second, secondRoute) = Self.node(2)
        _ = copy.receive(R.frame(R.register(second, requestID: 2), route: secondRoute), at: R.at(2))
        let original = try #require(Self.commit(in: core.endTurn(at: R.at(3))))
        let copied = try #require(Self.commit(in: copy.endTurn(at: R.at(3))))
        #expect(original.entries.map(\.node) == [first.rawValue])
        #expect(copied.entries.map(\.node) == [first.rawValue, second.rawValue])
        let released = copy.turnCommitted(copied.id, at: R.at(4))
        let publications = released.compactMap { if case .publish(EventTopic.everyBatch, let publication) = $0 { publication } else { nil } }
        #expect(Self.published(released) == [1, 2])
        for (publication, entry) in zip(publications, copied.entries) {
            #expect(publication.bytes == Envelope.encodedEventBatch(entry.batch, term: publication.envelope.term))
            #expect(publication.bytes == publication.envelope.serializedBytes(), "the bytes sent are the envelope's")
        }
        #expect(Self.published(core.turnCommitted(original.id, at: R.at(4))) == [1])
    }

    @Test("a reply of a turn that accepted nothing (a snapshot) waits for the turn in flight before it")
    func repliesWaitForEarlierTurns() throws {
        var core = R.core()
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 1))
        _ = core.receive(R.frame(.snapshotRequest(sender: "ipad-1", requestID: 2)), at: R.at(2))
        #expect(R.replies(core.endTurn(at: R.at(2))).isEmpty, "the snapshot speaks of sequence 1, not durable yet")
        let released = core.turnCommitted(first.id, at: R.at(3))
        let replies = R.replies(released)
        #expect(replies.count == 2)
        #expect(replies.last.map { if case .snapshot? = $0.body { true } else { false } } == true)
    }

    @Test("snapshot requests of one turn are answered at its end with one snapshot, of the state after the turn's commands")
    func snapshotsOncePerTurn() throws {
        var core = R.core()
        for index in 1...3 {
            let (id, route) = Self.node(index)
            _ = core.receive(R.frame(R.register(id, requestID: 10), route: route), at: R.at(1))
            _ = core.receive(R.frame(.snapshotRequest(sender: id.rawValue, requestID: UInt64(20 + index)), route: route), at: R.at(1))
        }
        let ended = core.endTurn(at: R.at(2))
        let encodings = ended.filter { if case .count(.snapshotEncoded) = $0 { true } else { false } }
        #expect(encodings.count == 1, "the whole state encoded once for the three requests")
        let commit = try #require(Self.commit(in: ended))
        let released = core.turnCommitted(commit.id, at: R.at(3))
        #expect(released.filter { if case .answer = $0 { true } else { false } }.count == 3, "its bytes, each request's id appended")
        let snapshots = R.replies(released).compactMap { envelope -> (UInt64, Camsync_V1_Snapshot)? in
            if case .snapshot(let snapshot)? = envelope.body { (envelope.requestID, snapshot) } else { nil }
        }
        #expect(snapshots.map(\.0) == [21, 22, 23], "each request its own answer")
        #expect(snapshots.allSatisfy { $0.1.sequence == 3 && $0.1.state.nodes.count == 3 }, "the state after all three registrations")
    }

    @Test("the pipeline holds at most commitsInFlight turns; then the turn keeps gathering, and frames wait once it is full")
    func backpressure() throws {
        var settings = R.core().settings
        settings.commitsInFlight = 2
        settings.batchLimit = 2
        var core = CoordinatorCore(settings: settings, term: 7)
        core.beginServing(at: R.at(0))
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 1))
        _ = try #require(Self.registerTurn(&core, 2, requestID: 2, at: 2))
        #expect(Self.registerTurn(&core, 3, requestID: 3, at: 3) == nil, "two in flight: the third turn waits")
        #expect(core.takesFrames, "it still takes frames up to the batch limit")
        let (id, route) = Self.node(4)
        _ = core.receive(R.frame(R.register(id, requestID: 4), route: route), at: R.at(4))
        #expect(!core.takesFrames, "full pipeline and a full turn: frames wait in the socket")
        let released = core.turnCommitted(first.id, at: R.at(5))
        #expect(Self.acks(released) == [1])
        let next = try #require(Self.commit(in: core.endTurn(at: R.at(5))))
        #expect(next.entries.map(\.sequence) == [3, 4], "the waiting turn goes as one group commit")
        #expect(core.takesFrames)
    }

    @Test("HA: a turn etcd took before the one it follows is sent again, same id, once that turn is durable")
    func outOfOrderIsSentAgain() throws {
        var core = L.standby()
        _ = L.lead(&core, term: 42)
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 20))
        let second = try #require(Self.registerTurn(&core, 2, requestID: 2, at: 21))
        #expect(first.leadership == L.leadership(42) && second.leadership == L.leadership(42))
        let refused = core.turnFailed(second.id, StoreFailure(.outOfOrder, "turn 1 not in the log yet"), at: R.at(22))
        #expect(Self.commit(in: refused) == nil, "not again before turn 1 is in the log")
        #expect(core.role.isLeading, "no step down")
        let firstDone = core.turnCommitted(first.id, at: R.at(23))
        #expect(Self.acks(firstDone) == [1])
        let again = try #require(Self.commit(in: firstDone))
        #expect(again.id == second.id && again.entries == second.entries, "the same turn, the same id")
        #expect(again.follows == nil, "turn 1 is durable now")
        #expect(firstDone.contains(.count(.commitResent)))
        #expect(Self.acks(core.turnCommitted(second.id, at: R.at(24))) == [2])
    }

    @Test("HA: a turn etcd refused takes every later turn in flight with it: NOT_LEADER for all, nothing published, later answers ignored")
    func failureTakesLaterTurns() throws {
        var core = L.standby()
        _ = L.lead(&core, term: 42)
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 20))
        let second = try #require(Self.registerTurn(&core, 2, requestID: 2, at: 21))
        _ = core.receive(R.frame(R.register(Self.node(3).id, requestID: 3), route: Self.node(3).route), at: R.at(22))
        let failed = core.turnFailed(first.id, StoreFailure(.notLeader, "this coordinator lost its leadership on etcd"), at: R.at(23))
        #expect(L.notLeader(failed).count == 3, "the failed turn, the one in flight after it, and the one gathered")
        #expect(Self.acks(failed).isEmpty && Self.published(failed).isEmpty)
        #expect(L.resigns(failed) == [L.leadership(42)])
        #expect(core.role == .rebuilding)
        let late = core.turnCommitted(second.id, at: R.at(24))
        #expect(Self.acks(late).isEmpty && Self.published(late).isEmpty, "durable or not, it is never acknowledged by this leader")
    }

    @Test("embedded: a write the journal failed stops the coordinator, whatever else is in flight")
    func embeddedFailureStops() throws {
        var core = R.core()
        let first = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 1))
        let second = try #require(Self.registerTurn(&core, 2, requestID: 2, at: 2))
        let released = core.turnCommitted(second.id, at: R.at(3))
        #expect(released.isEmpty)
        let failed = core.turnFailed(first.id, StoreFailure(.unavailable, "disk I/O error"), at: R.at(4))
        #expect(failed.contains { if case .stop = $0 { true } else { false } })
        #expect(Self.acks(failed).isEmpty && Self.published(failed).isEmpty)
    }

    @Test("a snapshot is asked for with the turn that reaches its sequence, not after it commits")
    func snapshotWithItsTurn() throws {
        var core = R.core(snapshotEvery: 2)
        _ = try #require(Self.registerTurn(&core, 1, requestID: 1, at: 1))
        let (id, route) = Self.node(2)
        _ = core.receive(R.frame(R.register(id, requestID: 2), route: route), at: R.at(2))
        let end = core.endTurn(at: R.at(2))
        let commit = try #require(Self.commit(in: end))
        let snapshots = end.compactMap { if case .writeSnapshot(let snapshot, _, _) = $0 { snapshot } else { nil } }
        #expect(snapshots.map(\.sequence) == [commit.lastSequence], "the state is exactly the log through that turn")
        let commitIndex = try #require(end.firstIndex { if case .commit = $0 { true } else { false } })
        let snapshotIndex = try #require(end.firstIndex { if case .writeSnapshot = $0 { true } else { false } })
        #expect(commitIndex < snapshotIndex, "the journal writes the turn first")
    }

    @Test("replays are served from memory while the batches asked for are kept, from the log before that")
    func replayFromMemory() throws {
        var core = R.core()
        var published: [Camsync_V1_EventBatch] = []
        for index in 1...3 {
            let commit = try #require(Self.registerTurn(&core, index, requestID: UInt64(index), at: Int64(index)))
            for case .publish(EventTopic.everyBatch, let publication) in core.turnCommitted(commit.id, at: R.at(Int64(index))) {
                if case .eventBatch(let batch)? = publication.envelope.body { published.append(batch) }
            }
        }
        var request = Camsync_V1_ReplayRequest()
        request.afterSequence = 1
        let envelope = Envelope(sender: "ipad-1", requestID: 9, term: 0, body: .replayRequest(request))
        let answered = core.receiveTurn(R.frame(envelope), at: R.at(5))
        #expect(!answered.contains { if case .serveReplay = $0 { true } else { false } }, "no log read")
        let replays = R.replies(answered).compactMap { envelope -> Camsync_V1_Replay? in
            if case .replay(let replay)? = envelope.body { replay } else { nil }
        }
        let replay = try #require(replays.first)
        #expect(replay.batches.map(\.sequence) == [2, 3])
        #expect(replay.lastSequence == 3)
        // Kept as their bytes, they come back whole: the batches published, events and all.
        #expect(replay.batches == Array(published.suffix(2)))
        #expect(replay.batches.allSatisfy { !$0.events.isEmpty })
    }

    @Test("RecentBatches keeps the last `capacity` batches in order and starts afresh at a gap", arguments: [1, 3, 8])
    func recentBatches(capacity: Int) {
        /// A batch's bytes as published: 100 bytes whose first says which.
        func encoded(_ sequence: UInt64) -> [UInt8] { [UInt8(sequence)] + Array(repeating: 0, count: 99) }
        var recent = RecentBatches(capacity: capacity)
        for sequence in UInt64(1)...20 { recent.append(sequence: sequence, encoded: encoded(sequence)) }
        #expect(recent.count == capacity)
        #expect(recent.firstSequence == UInt64(21 - capacity) && recent.lastSequence == 20)
        #expect(!recent.holds(after: UInt64(19 - capacity)))
        #expect(recent.holds(after: UInt64(20 - capacity)))
        #expect(recent.after(UInt64(20 - capacity)) == (UInt64(21 - capacity)...20).map(encoded))
        #expect(recent.after(UInt64(20 - capacity), byteLimit: 150).count == 1, "the byte limit, at least one")
        #expect(recent.after(UInt64(20 - capacity), through: 19) == (UInt64(21 - capacity)..<20).map(encoded))
        // The same batches kept compare equal wherever the ring starts.
        var other = RecentBatches(capacity: capacity)
        for sequence in UInt64(21 - capacity)...20 { other.append(sequence: sequence, encoded: encoded(sequence)) }
        #expect(other == recent)
        recent.append(sequence: 30, encoded: encoded(30))
        #expect(recent.count == 1 && recent.firstSequence == 30)
        #expect(recent.after(29) == [encoded(30)] && recent.after(30).isEmpty)
    }
}
