import CamsyncPolicy
import Testing
@testable import CamsyncNode

/// The Clone pattern on the node side (K2): snapshot at S, then only S+1, S+2, …; a gap → resnapshot.
@Suite struct ReplicaSyncTests {
    /// A real command history from the engine, as published batches.
    static func batches() -> (PolicySettings, [PublishedBatch], [ClusterState]) {
        var engine = PolicyEngine()
        let device = DeviceAttributes(model: "iPad", osMajor: 16, cameras: [CameraSpec(name: "front", position: .front)],
                                      apps: [AppSpec(bundleID: "a"), AppSpec(bundleID: "b")])
        let a = AppID(device: "ipad-1", bundleID: "a"), b = AppID(device: "ipad-1", bundleID: "b")
        let commands: [Command] = [
            .registerNode(NodeRegistration(node: "ipad-1", attributes: .device(device))),
            .openFullScreen(a, trigger: .user),
            .configureSession(a, SessionConfiguration(camera: CameraID(host: "ipad-1", name: "front"))),
            .startSession(a),
            .openFullScreen(b, trigger: .user),
            .openFullScreen(a, trigger: .user),
        ]
        var batches: [PublishedBatch] = [], states: [ClusterState] = [engine.state]
        for (index, command) in commands.enumerated() {
            let time = Instant(milliseconds: Int64(index) * 10)
            let events = (try? engine.apply(command, at: time).get()) ?? []
            batches.append(PublishedBatch(sequence: UInt64(index + 1), term: 1, time: time, command: command, events: events))
            states.append(engine.state)
        }
        return (engine.settings, batches, states)
    }

    @Test("batches before the snapshot are buffered; those it covers are dropped (but kept for app logs); the rest apply")
    func joinBuffersThenApplies() {
        let (settings, batches, states) = Self.batches()
        var sync = ReplicaSync()
        for batch in batches[1...4] { #expect(sync.receive(batch) == .nothing) }
        let outcome = sync.receiveSnapshot(sequence: 3, term: 1, state: states[3], settings: settings)
        #expect(outcome == .applied([batches[3], batches[4]]))
        #expect(sync.coveredBySnapshot.map(\.sequence) == [2, 3])
        #expect(sync.state == states[5])
        #expect(sync.receive(batches[5]) == .applied([batches[5]]))
        #expect(sync.state == states[6])
        #expect(sync.receive(batches[5]) == .nothing, "an old duplicate is ignored")
    }

    @Test("a gap means a new snapshot, never guesswork")
    func gapResyncs() {
        let (settings, batches, states) = Self.batches()
        var sync = ReplicaSync()
        _ = sync.receiveSnapshot(sequence: 2, term: 1, state: states[2], settings: settings)
        guard case .needSnapshot = sync.receive(batches[3]) else {
            Issue.record("sequence 4 after 2 must ask for a snapshot")
            return
        }
        #expect(sync.phase == .awaitingSnapshot)
    }

    @Test("a batch whose events differ from the replica's own replay is divergence: resnapshot")
    func divergenceResyncs() {
        let (settings, batches, states) = Self.batches()
        var sync = ReplicaSync()
        _ = sync.receiveSnapshot(sequence: 3, term: 1, state: states[3], settings: settings)
        var tampered = batches[3]
        tampered.events = []
        guard case .needSnapshot = sync.receive(tampered) else {
            Issue.record("divergent events must ask for a snapshot")
            return
        }
    }

    @Test("K6: a new leader's batches continue the sequence under its much larger term (an etcd revision)")
    func newLeaderContinuesTheSequence() {
        let (settings, batches, states) = Self.batches()
        var sync = ReplicaSync()
        _ = sync.receiveSnapshot(sequence: 3, term: 1, state: states[3], settings: settings)
        let newTerm: UInt64 = 7_340_123
        #expect(!sync.isBehind(coordinatorTerm: newTerm, lastSequence: 3), "the new leader has what the old one published")
        let continued = batches[3...].map { batch in
            var batch = batch
            batch.term = newTerm
            return batch
        }
        for batch in continued { #expect(sync.receive(batch) == .applied([batch])) }
        #expect(sync.sequence == 6 && sync.term == newTerm && sync.phase == .synced)
        #expect(sync.state == states[6])
        #expect(!sync.isBehind(coordinatorTerm: newTerm, lastSequence: 6))
    }

    @Test("heartbeats reveal lost batches and a coordinator that lost data")
    func heartbeatsRevealGaps() {
        let (settings, _, states) = Self.batches()
        var sync = ReplicaSync()
        _ = sync.receiveSnapshot(sequence: 4, term: 1, state: states[4], settings: settings)
        #expect(!sync.isBehind(coordinatorTerm: 1, lastSequence: 4))
        #expect(sync.isBehind(coordinatorTerm: 1, lastSequence: 5))
        #expect(sync.isBehind(coordinatorTerm: 2, lastSequence: 3), "a restarted coordinator behind us lost data: resync")
        #expect(!sync.isBehind(coordinatorTerm: 2, lastSequence: 4))
    }
}
