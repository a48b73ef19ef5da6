import CamsyncClient
import CamsyncHostile
import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
import ZeroMQ

/// Hostile input at a standby: the flood tool's adversarial frames (every `FloodKind`)
/// aimed at a standby of a live HA cluster (etcd over mutual TLS) while a node streams camera claims
/// through the leader. The leader must not notice: same leader, same term, every claim acknowledged;
/// the standby survives and still names the leader.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(4)))
struct StandbyFloodTests {
    @Test("a flood of hostile frames at a standby leaves the leader, its term and a stream of claims untouched")
    func floodAtStandby() async throws {
        try await HighAvailabilityTests.withHACluster { cluster in
            let leader = try HighAvailabilityTests.leader(cluster)
            let termBefore = try cluster.coordinatorState().term
            let standby = try #require(cluster.topology.allCoordinators.first { cluster.topology.processName($0) != leader })
            let standbyName = cluster.topology.processName(standby)

            let stream = HighAvailabilityTests.ClaimStream(node: "ipad-1")
            let stop = Locked(false)
            let claims = try JoinableThread { stream.run(cluster, until: stop) }
            defer { stop.withLock { $0 = true }; claims.join() }

            let frames = FloodFrames(realNode: "ipad-1", otherNode: "ipad-2")
            let templates = FloodKind.allCases.flatMap { frames.templates[$0] ?? [] }
            try #require(!templates.isEmpty)
            let context = try ZMQContext(ioThreads: 1)
            let socket = try ZMQSocket(context, .dealer)
            try socket.set([.linger(milliseconds: 0), .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000)])
            try socket.connect(LocalCluster.localCommands(standby))
            var sent = 0, answers = 0
            for serial in 0..<20_000 {
                if try socket.send(FloodFrames.frames(templates[serial % templates.count], serial: UInt64(serial)), dontWait: true) {
                    sent += 1
                }
                while try socket.receive(dontWait: true) != nil { answers += 1 }
            }
            // Let the standby answer what it was sent (bounded), so that the flood has really hit it.
            try cluster.waitUntil(timeout: 30, what: "the standby to answer the flood") {
                while try socket.receive(dontWait: true) != nil { answers += 1 }
                return answers >= sent / 2
            }
            socket.close()
            print("flood at standby \(standbyName): \(sent) frames sent, \(answers) answered; claims acknowledged meanwhile: "
                  + "\(stream.acks.withLock { $0.count })")

            stop.withLock { $0 = true }
            #expect(stream.failures.withLock { $0 }.isEmpty, "\(stream.failures.withLock { $0 })")
            #expect(!stream.acks.withLock { $0 }.isEmpty)
            #expect(try HighAvailabilityTests.leader(cluster) == leader)
            #expect(try cluster.coordinatorState().term == termBefore)
            #expect(cluster.coordinators[standbyName]?.isRunning == true)
            let client = try cluster.coordinatorClient(named: standbyName)
            defer { client.close() }
            do {
                _ = try client.snapshot(timeoutMilliseconds: 5_000)
                Issue.record("the standby answered a snapshot as if it led")
            } catch let error as ClientError {
                #expect(error.refusal?.code == .notLeader && error.refusal?.leader?.name == leader, "\(error)")
            }
        }
    }
}
}
