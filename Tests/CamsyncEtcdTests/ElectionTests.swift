import CamsyncEtcd
import CamsyncEtcdModel
import CamsyncProcessLab
import Testing

extension LiveEtcdTests {
    /// Leadership through the v3election API (SPEC K6): one leader at a time, takeover when the
    /// leader's lease expires, terms from the leader key's create revision.
    @Suite struct ElectionTests {
        static let election = "camsync/test/leader"

        @Test func secondCandidateTakesOverWhenTheLeadersLeaseExpires() async throws {
            try await withEtcdCluster { _, client in
                let leaseA = try await client.grantLease(ttlSeconds: 2)
                let leaseB = try await client.grantLease(ttlSeconds: 2)
                let keepA = Task { try await client.keepAlive(leaseA) }
                let keepB = Task { try await client.keepAlive(leaseB) }
                defer { keepA.cancel(); keepB.cancel() }

                let a = try await client.campaign(Self.election, lease: leaseA, value: Array("coordinator-a"))
                let campaignB = Task { try await client.campaign(Self.election, lease: leaseB, value: Array("coordinator-b")) }
                defer { campaignB.cancel() }

                // While A keeps its lease, A stays the only leader (two TTLs). Each round, a probe
                // lease of the same TTL granted after A's and never renewed expires on etcd (its key
                // goes): a positive sign that A's lease would have expired too, had it not been kept.
                for round in 0..<2 {
                    let probe = try await client.grantLease(ttlSeconds: 2)
                    let probeKey = "camsync/test/probe/\(round)"
                    try await client.put(probeKey, [1], lease: probe)
                    try await waitUntil("the probe lease to expire", timeout: .seconds(30)) { try await client.get(probeKey) == nil }
                    let leader = try #require(try await client.leader(Self.election))
                    #expect(leader.key == a.key)
                    #expect(leader.value == Array("coordinator-a"))
                    #expect(leader.term == a.term)
                }
                #expect(leaseA.ttlSeconds == 2 && leaseB.ttlSeconds == 2)
                try await client.commit([.put(key: "camsync/test/log/1", value: [1])], ifLeading: a)

                // A stops renewing (as if its process hung or died): its lease expires, B leads.
                keepA.cancel()
                let b = try await value(of: campaignB)
                #expect(b.term > a.term)
                #expect(b.lease == leaseB.id)
                let leader = try #require(try await client.leader(Self.election))
                #expect(leader.key == b.key)
                #expect(leader.value == Array("coordinator-b"))

                // The deposed leader's group commit is refused; the new leader's goes through.
                let deposed = await etcdErrorCode { try await client.commit([.put(key: "camsync/test/log/2", value: [2])], ifLeading: a) }
                #expect(deposed == .notLeader)
                try await client.commit([.put(key: "camsync/test/log/2", value: [3])], ifLeading: b)
                #expect(try await client.get("camsync/test/log/2")?.value == [3])
                #expect(try await client.range(prefix: "camsync/test/log/").keyValues.map(\.key) == ["camsync/test/log/1", "camsync/test/log/2"])
            }
        }

        @Test func termsStrictlyIncreaseAcrossLeaders() async throws {
            try await withEtcdCluster { _, client in
                var terms: [Int64] = []
                for round in 0..<4 {
                    let lease = try await client.grantLease(ttlSeconds: 5)
                    let leadership = try await client.campaign(Self.election, lease: lease, value: Array("round-\(round)"))
                    terms.append(leadership.term)
                    // Unrelated writes between leaders move the revision on; terms must still order leaders.
                    try await client.put("camsync/test/noise", Array("\(round)"))
                    if round.isMultiple(of: 2) {
                        try await client.resign(leadership)
                    } else {
                        try await client.revoke(lease)
                    }
                    let refused = await etcdErrorCode { try await client.commit([.put(key: "camsync/test/x", value: [])], ifLeading: leadership) }
                    #expect(refused == .notLeader)
                }
                #expect(terms == terms.sorted() && Set(terms).count == terms.count, "terms \(terms)")
                #expect(try await client.leader(Self.election) == nil)
            }
        }

        @Test func observersSeeEveryLeaderInOrder() async throws {
            try await withEtcdCluster { _, client in
                let seen = SeenLeaders()
                let observer = Task {
                    try await client.observe(Self.election) { leader in
                        await seen.append(leader)
                        return await seen.count < 2
                    }
                }
                defer { observer.cancel() }
                let first = try await client.grantLease(ttlSeconds: 5)
                let second = try await client.grantLease(ttlSeconds: 5)
                let a = try await client.campaign(Self.election, lease: first, value: Array("a"))
                let campaignB = Task { try await client.campaign(Self.election, lease: second, value: Array("b")) }
                // The observer has seen A before A goes.
                try await waitUntil("the observer to see the first leader") { await seen.count == 1 }
                try await client.revoke(first)
                let b = try await value(of: campaignB)
                try await value(of: observer)
                #expect(await seen.leaders.map(\.term) == [a.term, b.term])
                #expect(await seen.leaders.map(\.value) == [Array("a"), Array("b")])
            }
        }
    }
}

actor SeenLeaders {
    var leaders: [EtcdLeader] = []
    var count: Int { leaders.count }
    func append(_ leader: EtcdLeader) { leaders.append(leader) }
}
