import CamsyncEtcd
import CamsyncProcessLab
import Testing

extension LiveEtcdTests {
    /// Measures (and prints) the conditional-commit round trip on the 3-member loopback cluster.
    /// No speed is asserted; only that every commit went through.
    @Suite struct RoundTripTests {
        @Test func txnRoundTripIsMeasured() async throws {
            try await withEtcdCluster { _, client in
                let summary = try await EtcdRoundTrip.measure(client: client, count: 300, warmup: 30)
                print("etcd \(summary)")
                #expect(summary.count == 300)
                #expect(summary.median <= summary.p99 && summary.p99 <= summary.max)
                #expect(try await client.range(prefix: "camsync/bench/log/").keyValues.count == 330)
            }
        }
    }
}
