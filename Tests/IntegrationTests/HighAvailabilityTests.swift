import CamsyncClient
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncProcessLab
import CamsyncTopology
import CamsyncNode
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ
#if canImport(Glibc)
import Glibc
import CamsyncCoordinatorCore
#endif

/// SPEC K6 across real processes: a 3-member etcd cluster, three `camsync coordinator --etcd`, and
/// real nodes given every coordinator. The leader dies (kill -9) in the middle of a stream of camera
/// claims from several nodes, or etcd loses members; what was acknowledged must survive.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(4)))
struct HighAvailabilityTests {

    static func device(_ id: String) -> String {
        """
          - id: \(id)
            kind: device
            device:
              os: 16
              cameras: [ { name: front, position: front } ]
              apps:
                - { bundleID: com.example.videocall }
                - { bundleID: com.example.scanner }
        """
    }

    static let devices = ["ipad-1", "ipad-2", "ipad-3"]
    /// A display run by the C agent (`agent: c`): it follows the leader too.
    static let display = """
          - id: display-1
            kind: display
            agent: c
            display: { name: Studio Display, attachedTo: ipad-1, cameras: [ { name: center-stage, position: external } ] }
        """

    /// An HA cluster on loopback: etcd members and coordinators on free ports; nodes record their
    /// fence decisions; with `curve`, CURVE everywhere (a key pair per coordinator). Always stopped
    /// (etcd included) when `body` ends.
    /// `liveness`: heartbeats (of 200 ms) a node may miss before it is declared dead.
    static func withHACluster<T>(curve: Bool = false, liveness: Int = 5, prepare: (LocalCluster) -> Void = { _ in },
                                 _ body: (LocalCluster) async throws -> T) async throws -> T {
        let dir = EtcdCluster.scratchParent + "/camsync-ha-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let coordinators = ["c1", "c2", "c3"].map { name in
            "  - { name: \(name), commands: tcp://127.0.0.1:\(LoopbackPorts.free()), events: tcp://127.0.0.1:\(LoopbackPorts.free()) }"
        }.joined(separator: "\n")
        let yaml = """
            name: ha-test
            etcd: { members: 3, leaseSeconds: 2 }
            coordinators:
            \(coordinators)
            settings: { heartbeatMs: 200, liveness: \(liveness) }
            security: { curve: \(curve) }
            nodes:
            \(devices.map(device).joined(separator: "\n"))
            \(display)
            """
        // Also as a file, for the CLI's `-f TOPOLOGY --run-dir DIR`.
        try yaml.write(toFile: "\(dir)/topology.yaml", atomically: true, encoding: .utf8)
        let cluster = try LocalCluster(topology: try Topology(yaml: yaml), runDirectory: dir, executable: try camsyncBinary())
        cluster.recordsNodeHistory = true
        prepare(cluster)
        defer { cluster.stop(grace: 3) }
        do {
            try cluster.start(timeout: 60)
            return try await body(cluster)
        } catch {
            var logs = ""
            for name in ["c1", "c2", "c3"] + devices + ["display-1"] {
                let text = (try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8)) ?? ""
                logs += "--- \(name).log (tail)\n" + text.split(separator: "\n").suffix(12).joined(separator: "\n") + "\n"
            }
            throw ClusterWaitError(message: "\(error)\n\(logs)")
        }
    }

    /// The name of the coordinator that leads now.
    static func leader(_ cluster: LocalCluster) throws -> String {
        let endpoint = try cluster.leaderCommandEndpoint()
        let leader = cluster.topology.allCoordinators.first { LocalCluster.localCommands($0) == endpoint }
        return try #require(leader.map { cluster.topology.processName($0) })
    }

    /// The command log as etcd holds it.
    static func etcdLog(_ cluster: LocalCluster) async throws -> [JournalEntry] {
        try await cluster.withEtcdClient { client in
            try await EtcdCommandLog(client: client, prefix: cluster.etcdPrefix).entries(after: 0)
        }
    }

    /// One node's claims: the two apps take the front camera in turn (each start is a new grant).
    /// Every acknowledged sequence is recorded; a refusal or a timeout is recorded as such.
    final class ClaimStream: @unchecked Sendable {
        let node: String
        let acks = Locked<[UInt64]>([])
        let failures = Locked<[String]>([])
        init(node: String) { self.node = node }

        func run(_ cluster: LocalCluster, until stop: Locked<Bool>) {
            guard let client = try? cluster.controlClient(node) else { failures.withLock { $0.append("no control client") }; return }
            defer { client.close() }
            let camera = CameraID(host: NodeID(node), name: "front")
            let apps = ["com.example.videocall", "com.example.scanner"].map { AppID(device: NodeID(node), bundleID: $0) }
            var commands: [Command] = apps.flatMap { [.openFullScreen($0, trigger: .user), .configureSession($0, SessionConfiguration(camera: camera))] }
            var round = 0
            while !stop.withLock({ $0 }) {
                if commands.isEmpty {
                    let app = apps[round % 2]
                    commands = [.openFullScreen(app, trigger: .user), .startSession(app)]
                    round += 1
                }
                let command = commands.removeFirst()
                do {
                    let sequence = try client.act(command, timeoutMilliseconds: 20_000)
                    acks.withLock { $0.append(sequence) }
                } catch {
                    failures.withLock { $0.append("\(command): \(error)") }
                }
            }
        }
    }

    @Test("kill -9 of the leader during claims from three nodes: every ack survives, no sequence reused, tokens increase, replicas converge, nodes never restart nor re-register (K7)")
    func leaderKilledDuringClaims() async throws {
        try await Self.withHACluster { cluster in
            let oldLeader = try Self.leader(cluster)
            let oldTerm = try cluster.coordinatorState().term
            let pids = Dictionary(uniqueKeysWithValues: Self.devices.map { ($0, cluster.nodes[$0]?.pid ?? 0) })
            let stop = Locked(false)
            let streams = Self.devices.map(ClaimStream.init)
            let workers = try streams.map { stream in try JoinableThread { stream.run(cluster, until: stop) } }
            // A failed wait below throws: the streams stop (each within one claim's timeout) before the cluster goes.
            defer { stop.withLock { $0 = true } }
            // Claims flow for a while, then the leader dies mid-stream; claims go on through the failover.
            try cluster.waitUntil(timeout: 20, what: "claims acknowledged before the kill") {
                streams.allSatisfy { $0.acks.withLock { $0.count } >= 8 }
            }
            let ackedBeforeKill = streams.map { $0.acks.withLock { $0.count } }.reduce(0, +)
            let lastAckBeforeKill = streams.compactMap { $0.acks.withLock { $0.max() } }.max() ?? 0
            cluster.signalCoordinator(named: oldLeader, SIGKILL)
            try cluster.waitUntil(timeout: 30, what: "claims acknowledged by the new leader") {
                streams.map { $0.acks.withLock { $0.count } }.reduce(0, +) >= ackedBeforeKill + 3 * Self.devices.count
            }
            stop.withLock { $0 = true }
            workers.forEach { $0.join() }

            let newLeader = try Self.leader(cluster)
            #expect(newLeader != oldLeader)
            try cluster.waitUntil(timeout: 20, what: "every replica to converge on the new leader") {
                let (coordinator, nodes) = try cluster.replicas()
                return nodes.count == Self.devices.count + 1
                    && nodes.values.allSatisfy { $0.registered && $0.caughtUp(with: coordinator) }
            }
            let (snapshot, replicas) = try cluster.replicas()
            #expect(snapshot.term > oldTerm, "the new leader's term is higher")
            for (node, status) in replicas where !status.group.isEmpty {
                #expect(try status.replicaAgrees(with: snapshot.state), "\(node)'s replica equals the leader's part of its group")
            }
            let display = try #require(replicas["display-1"])
            #expect(display.partialReplica && display.term == snapshot.term, "the C agent follows the new leader")
            #expect(cluster.nodes["display-1"]?.isRunning == true, "the C agent never restarted")

            // Every acknowledged command is in the log on etcd, under its own sequence, exactly once.
            let log = try await Self.etcdLog(cluster)
            #expect(log.map(\.sequence) == Array(1...UInt64(log.count)), "the log is gap-free and no sequence is reused")
            #expect(log.last?.sequence == snapshot.sequence)
            let bySequence = Dictionary(uniqueKeysWithValues: log.map { ($0.sequence, $0) })
            var allAcks: [UInt64] = []
            for stream in streams {
                let acks = stream.acks.withLock { $0 }
                allAcks += acks
                for sequence in acks {
                    #expect(bySequence[sequence]?.node == stream.node, "ack \(sequence) to \(stream.node) is its command in the log")
                }
                #expect(acks == acks.sorted(), "\(stream.node)'s acks arrive in sequence order")
            }
            #expect(Set(allAcks).count == allAcks.count, "no sequence acknowledged twice")
            // K7: the leader change is not a restart: no node registered again after the kill.
            let registeredAfterKill = log.filter { $0.sequence > lastAckBeforeKill }.compactMap { entry -> String? in
                guard case .registerNode(let registration)? = try? WireCodec.decodeCommand(entry.command) else { return nil }
                return registration.node.rawValue
            }
            #expect(registeredAfterKill.isEmpty, "K7: nodes re-registered after the leader change: \(registeredAfterKill)")
            let failures = streams.flatMap { $0.failures.withLock { $0 } }
            #expect(failures.isEmpty, "no claim failed across the failover: \(failures.prefix(3))")

            // C8: on each device, the grants its fence allowed carry strictly increasing tokens.
            for node in Self.devices {
                let tokens = NodeHistoryEntry.read(path: cluster.historyPath(node)).compactMap { entry -> GrantToken? in
                    guard case .fence(let record) = entry, case .allowed = record.decision.kind else { return nil }
                    return record.decision.token
                }
                #expect(tokens.count >= 4, "\(node) was granted its camera repeatedly")
                #expect(zip(tokens, tokens.dropFirst()).allSatisfy { $0 < $1 }, "\(node)'s tokens strictly increase: \(tokens)")
                let refused = NodeHistoryEntry.read(path: cluster.historyPath(node)).contains { entry in
                    if case .fence(let record) = entry, case .refusedStale = record.decision.kind { return true }
                    return false
                }
                #expect(!refused, "\(node) never saw a stale grant")
                #expect(cluster.nodes[node]?.isRunning == true && cluster.nodes[node]?.pid == pids[node], "\(node) never restarted")
                let starts = NodeHistoryEntry.read(path: cluster.historyPath(node)).filter { if case .start = $0 { true } else { false } }
                #expect(starts.count == 1, "\(node) started once")
            }
        }
    }

    @Test("etcd loses one member: service goes on; two: writes stop with a clear error and nothing acknowledged is lost; quorum back: service resumes")
    func etcdQuorum() async throws {
        try await Self.withHACluster { cluster in
            let etcd = try #require(cluster.etcd)
            let client = try cluster.controlClient("ipad-1")
            defer { client.close() }
            let app = AppID(device: "ipad-1", bundleID: "com.example.videocall")
            var acked = [try client.act(.openFullScreen(app, trigger: .user))]

            // One member down: a quorum of two remains.
            etcd.kill(0)
            acked.append(try client.act(.goHome(device: "ipad-1")))
            acked.append(try client.act(.openFullScreen(app, trigger: .user)))

            // Two down: no quorum. The command is refused, saying why; nothing is acknowledged.
            etcd.kill(1)
            do {
                let sequence = try client.act(.goHome(device: "ipad-1"), timeoutMilliseconds: 30_000)
                Issue.record("acknowledged without a quorum: sequence \(sequence)")
            } catch let ClientError.refused(refusal) {
                #expect(refusal.message.contains("etcd"), "the refusal says why: \(refusal.message)")
            }

            // Quorum back: service resumes by itself, and every acknowledged command is still there.
            try etcd.start(0)
            try etcd.start(1)
            var resumed: UInt64?
            try cluster.waitUntil(timeout: 40, what: "service to resume after quorum returns") {
                resumed = try? client.act(.goHome(device: "ipad-1"), timeoutMilliseconds: 5_000)
                return resumed != nil
            }
            let log = try await Self.etcdLog(cluster)
            let sequences = Set(log.map(\.sequence))
            #expect(acked.allSatisfy(sequences.contains), "acknowledged \(acked), log holds \(log.map(\.sequence))")
            #expect(log.map(\.sequence) == Array(1...UInt64(log.count)), "no sequence reused or skipped")
        }
    }
}
}
