import CamsyncClient
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Failover by suspicion across real processes: a standby that stops hearing the leader's pulse revokes its
/// lease and leads without waiting for the lease to expire; the leader it deposed, paused
/// (SIGSTOP) meanwhile and resumed, neither acknowledges nor publishes: it answers NOT_LEADER.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)))
struct LeaderSuspicionTests {
    typealias HA = HighAvailabilityTests

    /// The leader as etcd shows it (the name its key's value carries), read without any coordinator.
    static func etcdLeader(_ cluster: LocalCluster) async throws -> Camsync_V1_CoordinatorAddress? {
        try await cluster.withEtcdClient { client in
            guard let leader = try await client.leader("\(cluster.etcdPrefix)/leader") else { return nil }
            var address = try Camsync_V1_CoordinatorAddress(serializedBytes: leader.value)
            address.term = UInt64(leader.term)
            return address
        }
    }

    @Test("a paused leader is suspected: a standby revokes its lease and leads; resumed, the old leader answers NOT_LEADER, acknowledges nothing and publishes no batch; as a standby it follows the log again")
    func pausedLeaderIsDeposed() async throws {
        try await HA.withHACluster { cluster in
            let oldLeader = try HA.leader(cluster)
            let old = try #require(try await Self.etcdLeader(cluster))
            #expect(old.name == oldLeader)
            let coordinator = try #require(cluster.topology.allCoordinators.first { $0.name == oldLeader })
            let context = try ZMQContext(ioThreads: 1)
            // Everything the old leader publishes from now on (its batches; nodes subscribe to `ev.`).
            let subscriber = try EventSubscriber(context: context, endpoint: coordinator.localEvents ?? coordinator.events,
                                                 topics: [EventTopic.everyBatch])
            defer { subscriber.close() }
            // What it published so far goes: until 300 ms pass without a batch (the leader's group
            // bookmarks keep coming every heartbeat interval, so silence itself never comes).
            var lastBatch = Date()
            while Date().timeIntervalSince(lastBatch) < 0.3 {
                if case .eventBatch? = try subscriber.next(timeoutMilliseconds: 100)?.envelope.body { lastBatch = Date() }
            }

            cluster.signalCoordinator(named: oldLeader, SIGSTOP)
            var resumed = false
            defer { if !resumed { cluster.signalCoordinator(named: oldLeader, SIGCONT) } }
            // A command sent to the paused leader waits in its socket until it resumes.
            let endpoint = LocalCluster.localCommands(coordinator)
            let command = Command.openFullScreen(AppID(device: "ipad-2", bundleID: "com.example.scanner"), trigger: .user)
            let answer = Locked<Result<UInt64, any Error>?>(nil)
            let sender = try JoinableThread {
                let result = Result {
                    let client = try CoordinatorClient(context: context, endpoint: endpoint)
                    defer { client.close() }
                    return try client.send(command, requestID: 777_001, timeoutMilliseconds: 60_000)
                }
                answer.withLock { $0 = result }
            }

            var newLeader: Camsync_V1_CoordinatorAddress?
            let deadline = Date().addingTimeInterval(30)
            while newLeader == nil, Date() < deadline {
                if let leader = try? await Self.etcdLeader(cluster), leader.name != oldLeader { newLeader = leader }
                else { try await Task.sleep(for: .milliseconds(50)) }
            }
            let successor = try #require(newLeader, "a standby leads while the old leader is paused")
            #expect(successor.term > old.term)
            let suspectedBy = try ["c1", "c2", "c3"].filter { $0 != oldLeader }.filter { name in
                try String(contentsOfFile: cluster.logPath(name), encoding: .utf8)
                    .contains("the leader's pulse stopped: revoking its lease")
            }
            #expect(!suspectedBy.isEmpty, "a standby suspected the paused leader and revoked its lease (not the lease's expiry)")

            cluster.signalCoordinator(named: oldLeader, SIGCONT)
            resumed = true
            sender.join()
            switch answer.withLock({ $0 }) {
            case .failure(ClientError.refused(let refusal))?:
                #expect(refusal.code == .notLeader, "the resumed old leader refuses: \(refusal.message)")
            case .success(let sequence)?:
                Issue.record("the deposed leader acknowledged sequence \(sequence) after its revocation")
            case .failure(let error)?:
                Issue.record("no NOT_LEADER from the resumed old leader: \(error)")
            case nil:
                Issue.record("no answer")
            }
            var published: [UInt64] = []
            while let (_, envelope) = try subscriber.next(timeoutMilliseconds: 1_000) {
                if case .eventBatch(let batch)? = envelope.body { published.append(batch.sequence) }
            }
            #expect(published.isEmpty, "the deposed leader published batches after its revocation: \(published)")
            let log = try await HA.etcdLog(cluster)
            #expect(!log.contains { $0.requestID == 777_001 }, "the command sent to the deposed leader is not in the log")

            // The new leader serves, and the old one comes back as a standby naming it.
            let leaderClient = try CoordinatorClient(context: context, endpoint: try cluster.leaderCommandEndpoint())
            defer { leaderClient.close() }
            let served = try leaderClient.send(command, requestID: 777_002, timeoutMilliseconds: 10_000)
            #expect(served > 0)
            #expect(try HA.leader(cluster) == successor.name)

            // The old leader follows the log again: it stopped watching it while it led, and watches
            // again as a standby, so a turn the new leader commits later reaches it by the watch
            // (its rebuild after stepping down read only what was committed by then).
            let oldClient = try CoordinatorClient(context: context, endpoint: endpoint)
            defer { oldClient.close() }
            func applied() throws -> (role: String, sequence: UInt64) {
                let status = try oldClient.coordinatorStatus(timeoutMilliseconds: 2_000)
                return (status.role, status.appliedSequence)
            }
            try cluster.waitUntil(timeout: 20, what: "the old leader to follow as a standby up to \(served)") {
                let (role, sequence) = try applied()
                return role == "standby" && sequence >= served
            }
            let later = try leaderClient.send(.goHome(device: "ipad-2"), requestID: 777_003, timeoutMilliseconds: 10_000)
            try cluster.waitUntil(timeout: 10, what: "the old leader's watch to deliver \(later)") { try applied().sequence >= later }
        }
    }
}
}
