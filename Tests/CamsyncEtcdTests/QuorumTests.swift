import CamsyncEtcd
import Testing

extension LiveEtcdTests {
    /// What the client does when members die: fail over for a lost member, fail with a clear
    /// error when the quorum is gone, and work again once it is back.
    @Suite struct QuorumTests {
        @Test func readsAndWritesFailOverWhenTheCurrentMemberDies() async throws {
            try await withEtcdCluster { cluster, client in
                try await client.put("camsync/test/k", Array("v1"))
                let used = try #require(cluster.members.firstIndex { $0.endpoint == client.currentEndpoint })
                cluster.kill(used)
                // The other two keep the quorum (after a raft election if the dead one led).
                let value = try await eventually { try await client.get("camsync/test/k")?.value }
                #expect(value == Array("v1"))
                #expect(client.currentEndpoint != cluster.members[used].endpoint)
                try await eventually { try await client.put("camsync/test/k", Array("v2")) }
                #expect(try await client.get("camsync/test/k")?.value == Array("v2"))
            }
        }

        @Test func losingQuorumFailsWritesClearlyAndRestartingHeals() async throws {
            try await withEtcdCluster { cluster, client in
                let lease = try await client.grantLease(ttlSeconds: 30)
                let leadership = try await client.campaign("camsync/test/leader", lease: lease, value: [])
                try await client.commit([.put(key: "camsync/test/log/1", value: [1])], ifLeading: leadership)

                cluster.kill(1)
                cluster.kill(2)
                // Bounded: every attempt ends within the request deadline (1 s per member); once the
                // survivor notices it has no leader (about one election timeout) it refuses at once.
                let clock = ContinuousClock()
                let started = clock.now
                let first = await etcdErrorCode { try await client.commit([.put(key: "camsync/test/log/2", value: [2])], ifLeading: leadership) }
                #expect(first == .noQuorum || first == .timedOut, "first write after losing quorum: \(String(describing: first))")
                let failedAfter = clock.now - started
                #expect(failedAfter < .seconds(10))
                try await eventually(timeout: .seconds(10)) {
                    let code = await etcdErrorCode { try await client.put("camsync/test/k", [1]) }
                    guard code == .noQuorum else { throw EtcdError(.protocolViolation, "got \(String(describing: code)), waiting for noQuorum") }
                }
                print("etcd: first write after losing quorum failed (\(String(describing: first))) after \(failedAfter); noQuorum after \(clock.now - started)")
                let read = await etcdErrorCode { _ = try await client.range(prefix: "camsync/test/log/") }
                #expect(read == .noQuorum)

                try cluster.start(1)
                try cluster.start(2)
                try await cluster.waitUntilHealthy()
                try await eventually { try await client.commit([.put(key: "camsync/test/log/2", value: [2])], ifLeading: leadership) }
                let log = try await client.range(prefix: "camsync/test/log/")
                #expect(log.keyValues.map(\.value) == [[1], [2]])
            }
        }
    }
}
