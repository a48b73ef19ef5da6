import CamsyncCoordinator
import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
import Testing
import CamsyncCoordinatorCore

extension LiveEtcdTests {
    /// The command log on etcd (SPEC K6, K3, K5): group commits as one conditional transaction,
    /// replays and recovery reading them back, snapshots compacting the log behind the retry window.
    @Suite struct CommandLogTests {
        static let election = "camsync/test/leader"

        /// The log entries the real core produces for `count` registrations (what a leader appends).
        static func entries(_ count: Int) -> [JournalEntry] { registered(count).entries }

        /// The real core after `count` registrations, one a turn, and the entries it logged.
        static func registered(_ count: Int) -> (core: CoordinatorCore, entries: [JournalEntry]) {
            var core = CoordinatorCore(settings: CoordinatorSettings(dataDirectory: ""), term: 7)
            var entries: [JournalEntry] = []
            for index in 1...count {
                let node = NodeID("ipad-\(index)")
                let registration = NodeRegistration(node: node, attributes: .device(DeviceAttributes(
                    model: "iPad", osMajor: 17, cameras: [CameraSpec(name: "front", position: .front)], apps: [])))
                let frame = InboundFrame(frames: [Array(node.rawValue.utf8),
                    Envelope.request(.registerNode(registration), sender: node.rawValue, requestID: UInt64(index)).serializedBytes()])
                let time = CoordinatorTime(monotonicMilliseconds: Int64(index), wallMilliseconds: 1_000 + Int64(index))
                for case .commit(let commit) in core.runTurn(at: time, { $0.receive(frame, at: time) }) { entries += commit.entries }
            }
            return (core, entries)
        }

        @Test func groupCommitsReadBackAsReplaysAndRecovery() async throws {
            try await withEtcdCluster { _, client in
                let lease = try await client.grantLease(ttlSeconds: 5)
                let leader = try await client.campaign(Self.election, lease: lease, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                let entries = Self.entries(5)
                // Two turns: 1–3, then 4–5.
                try await log.append(Array(entries[0..<3]), ifLeading: leader)
                try await log.append(Array(entries[3...]), ifLeading: leader)

                #expect(try await log.entries(after: 0) == entries, "recovery reads back exactly what was appended")
                #expect(try await log.batches(after: 2, limit: 2) == entries[2..<4].map(\.batch),
                        "a replay starts inside a turn and stops at its limit")
                #expect(try await log.batches(after: 5, limit: 10).isEmpty)
                let logged = try await log.loggedBatches(after: 1)
                #expect(logged.map(\.batch.sequence) == [2, 3, 4, 5], "a standby's read starts inside a turn")
                #expect(logged.map(\.size) == entries[1...].map(\.batch.count), "each batch's size is that of its bytes as published")
            }
        }

        @Test("a pipelined turn that reaches etcd before the turn it follows is refused as out of order, writes nothing, and goes through once sent again after it")
        func pipelinedTurnsKeepTheirOrder() async throws {
            try await withEtcdCluster { _, client in
                let lease = try await client.grantLease(ttlSeconds: 5)
                let leader = try await client.campaign(Self.election, lease: lease, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                let entries = Self.entries(4)
                try await log.append(Array(entries[0..<2]), ifLeading: leader)
                let early = await etcdErrorCode { try await log.append([entries[3]], ifLeading: leader, follows: 3) }
                #expect(early == .outOfOrder)
                #expect(try await log.entries(after: 0) == Array(entries[0..<2]), "nothing of the early turn is written")
                let snapshot = JournalSnapshot(sequence: 4, term: 7, state: WireCodec.encode(ClusterState()))
                let earlySnapshot = await etcdErrorCode { try await log.writeSnapshot(snapshot, keepingCommands: 1, ifLeading: leader) }
                #expect(earlySnapshot == .outOfOrder, "a snapshot waits for the turn it ends with")
                try await log.append([entries[2]], ifLeading: leader, follows: 2)
                try await log.append([entries[3]], ifLeading: leader, follows: 3)
                #expect(try await log.entries(after: 0) == entries)
                try await log.writeSnapshot(snapshot, keepingCommands: 1, ifLeading: leader)
                #expect(try await log.latestSnapshot() == snapshot)
            }
        }

        @Test("turns of up to 1 MiB each read back in pages larger than gRPC's default 4 MiB")
        func largeTurnsReadBack() async throws {
            // Letters that deflate to about 6 bits each (turns are stored deflated): 8 × 0.7 MB in one
            // page. Made before the lease is granted: a debug build takes seconds.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            var letters = [UInt8](repeating: 0, count: 900_000)
            for index in letters.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                letters[index] = UInt8(ascii: "A") + UInt8(state % 58)
            }
            let originNode = String(decoding: letters, as: UTF8.self)
            try await withEtcdCluster { _, client in
                let lease = try await client.grantLease(ttlSeconds: 5)
                let leader = try await client.campaign(Self.election, lease: lease, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                // Renewed while the turns are written, as a leader's lease is: eight synced writes of
                // 0.7 MB outlasted a 5 s lease in a loaded CI run (the lease is not what is tested).
                try await withThrowingTaskGroup(of: Void.self) { renewal in
                    renewal.addTask { try await client.keepAlive(lease) }
                    for sequence in UInt64(1)...8 {
                        var batch = Camsync_V1_EventBatch()
                        batch.sequence = sequence
                        batch.originNode = originNode
                        try await log.append([try JournalEntry(publishedBatch: batch)], ifLeading: leader)
                    }
                    renewal.cancelAll()
                }
                let stored = try await client.range(prefix: "camsync/test/log/", limit: 8).keyValues.reduce(0) { $0 + $1.value.count }
                #expect(stored > 4 << 20, "the page is larger than gRPC's default limit (\(stored) bytes stored)")
                let read = try await log.entries(after: 0)
                #expect(read.map(\.sequence) == Array(1...8), "\(stored) bytes of turns in one page")
            }
        }

        @Test("a turn is stored deflated (30 registrations: under half their size), and a turn stored as a plain Replay (a log written before) is still read")
        func turnsAreStoredDeflated() async throws {
            try await withEtcdCluster { _, client in
                let lease = try await client.grantLease(ttlSeconds: 5)
                let leader = try await client.campaign(Self.election, lease: lease, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                let entries = Self.entries(40)
                try await log.append(Array(entries[0..<30]), ifLeading: leader)
                let stored = try #require(try await client.get(log.logKey(30))).value
                #expect(stored.first == 0x78, "a zlib stream")
                let batchBytes = entries[0..<30].reduce(0) { $0 + $1.batch.count }
                #expect(stored.count * 2 < batchBytes, "\(stored.count) bytes stored for \(batchBytes) bytes of batches")
                var plain = Camsync_V1_Replay()
                plain.batches = try entries[30...].map { try Camsync_V1_EventBatch(serializedBytes: $0.batch) }
                plain.lastSequence = 40
                _ = try await client.commit([.put(key: log.logKey(40), value: try plain.serializedBytes())], ifLeading: leader)
                #expect(try await log.entries(after: 0) == entries, "both forms read back as appended")
            }
        }

        @Test func aDeposedLeaderWritesNothing() async throws {
            try await withEtcdCluster { _, client in
                let leaseA = try await client.grantLease(ttlSeconds: 2)
                let a = try await client.campaign(Self.election, lease: leaseA, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                let entries = Self.entries(2)
                try await log.append([entries[0]], ifLeading: a)
                try await client.revoke(leaseA)
                let leaseB = try await client.grantLease(ttlSeconds: 5)
                let b = try await client.campaign(Self.election, lease: leaseB, value: Array("coordinator-b"))
                #expect(b.term > a.term)
                let refused = await etcdErrorCode { try await log.append([entries[1]], ifLeading: a) }
                #expect(refused == .notLeader)
                #expect(try await log.entries(after: 0) == [entries[0]], "the deposed leader's turn is not in the log")
                try await log.append([entries[1]], ifLeading: b)
                #expect(try await log.entries(after: 0) == entries)
            }
        }

        @Test("a snapshot is stored deflated (2,000 nodes: under a quarter of its size, as 10,000 nodes' state must be to fit etcd's 1.5 MiB requests), and one stored as a plain Snapshot (written before) is still read")
        func snapshotsAreStoredDeflated() async throws {
            try await withEtcdCluster { _, client in
                let lease = try await client.grantLease(ttlSeconds: 5)
                let leader = try await client.campaign(Self.election, lease: lease, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                let (core, entries) = Self.registered(2_000)
                try await log.append(entries, ifLeading: leader)
                let snapshot = JournalSnapshot(sequence: 2_000, term: 7, state: WireCodec.encode(core.state))
                try await log.writeSnapshot(snapshot, keepingCommands: 100, ifLeading: leader)
                let stored = try #require(try await client.get("camsync/test/snapshot")).value
                #expect(stored.first == 0x78, "a zlib stream")
                #expect(stored.count * 4 < snapshot.state.count, "\(stored.count) bytes stored for a state of \(snapshot.state.count)")
                #expect(try await log.latestSnapshot() == snapshot)
                var plain = Camsync_V1_Snapshot()
                plain.sequence = 2_000
                plain.term = 8
                plain.state = try Camsync_V1_ClusterState(serializedBytes: snapshot.state)
                _ = try await client.commit([.put(key: "camsync/test/snapshot", value: try plain.serializedBytes())], ifLeading: leader)
                #expect(try await log.latestSnapshot() == JournalSnapshot(sequence: 2_000, term: 8, state: snapshot.state))
            }
        }

        @Test func aSnapshotCompactsTheLogBehindTheRetryWindow() async throws {
            try await withEtcdCluster { _, client in
                let lease = try await client.grantLease(ttlSeconds: 5)
                let leader = try await client.campaign(Self.election, lease: lease, value: Array("coordinator-a"))
                let log = EtcdCommandLog(client: client, prefix: "camsync/test")
                let entries = Self.entries(6)
                for entry in entries { try await log.append([entry], ifLeading: leader) }
                #expect(try await log.latestSnapshot() == nil)
                let state = WireCodec.encode(ClusterState())
                try await log.writeSnapshot(JournalSnapshot(sequence: 5, term: 7, state: state), keepingCommands: 2,
                                            ifLeading: leader)
                #expect(try await log.latestSnapshot() == JournalSnapshot(sequence: 5, term: 7, state: state))
                #expect(try await log.entries(after: 0).map(\.sequence) == [4, 5, 6],
                        "turns ending at or before 5 − 2 are dropped; the retry window's commands stay")
            }
        }
    }
}
