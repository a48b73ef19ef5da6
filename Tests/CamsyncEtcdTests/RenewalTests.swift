import CamsyncEtcd
import Testing

extension LiveEtcdTests {
    /// A lease renewal when the member the client talks to stops answering (SPEC K6; what the HA soak
    /// with partitions found: a renewal that waited the whole request timeout on a cut member lost a
    /// lease that two members could have renewed).
    @Suite struct RenewalTests {
        @Test("a renewal gives each member a deadline of its own: when the member it prefers is silent, the next renews the lease before it lapses")
        func renewalMovesOnFromASilentMember() async throws {
            try await withEtcdCluster { cluster, client in
                // A follower, so that the silent member's loss leaves the raft leader (and the lease) be.
                let follower = try #require(await client.memberStatuses().firstIndex { $0.reachable && !$0.isLeader })
                let endpoints = [cluster.endpoints[follower]] + cluster.endpoints.indices.filter { $0 != follower }.map { cluster.endpoints[$0] }
                // The request timeout is longer than the lease, as the lab's coordinators have it.
                var settings = EtcdClient.Settings(requestTimeout: .seconds(5))
                settings.tls = try cluster.clientSettings().tls
                try await EtcdClient.with(endpoints: endpoints, settings: settings) { renewing in
                    let lease = try await renewing.grantLease(ttlSeconds: 2)
                    #expect(renewing.currentEndpoint == cluster.endpoints[follower])
                    cluster.pause(follower)
                    defer { cluster.pause(follower, false) }
                    let ttl = try await renewing.renew(lease, attemptTimeout: .milliseconds(lease.ttlSeconds * 1000 / 6))
                    #expect(ttl > 0, "the lease was renewed, not found expired")
                    #expect(renewing.currentEndpoint != cluster.endpoints[follower], "the next member answered")
                }
            }
        }
    }
}
