import CamsyncProcessLab
import CamsyncRuntime
import CamsyncEtcd
import CamsyncPolicy
import CamsyncWire
import Foundation

/// `ha-latency`: claim → grant against the leader of HA coordinators (SPEC K6), whose every group
/// commit is one leader-conditional etcd txn before any ack. Same loop as `latency`
/// (`ClaimRoundTrips`); its floors are measured in the same run: the raw ZeroMQ round trip (`Floor`)
/// and the raw etcd txn round trip (`EtcdRoundTrip`, the same kind of conditional put, on the same
/// etcd cluster while the coordinators run). Target: p50 ≤ etcd txn p50 + 2 × raw round trip p50.
/// It runs twice in one go: etcd over mutual TLS with auth (the default) and in plaintext.
public enum HALatencyBenchmark {
    public static func run(_ settings: BenchSettings) throws -> BenchmarkResult {
        var result = BenchmarkResult(name: "ha-latency")
        let dir = try settings.directory("ha-latency")
        let count = settings.pick(5000, quick: 300)
        let warmup = settings.pick(300, quick: 50)
        let coordinatorCount = settings.haCoordinators
        let measured = SimulatedNode.id(0)
        let startBytes = Envelope.request(SimulatedNode.start(measured), sender: measured, requestID: 1 << 40).serializedBytes()

        settings.progress("ha-latency: ZeroMQ floor, \(startBytes.count)-byte round trips")
        let floor = try Floor.measure(executable: settings.executable, directory: dir, size: startBytes.count,
                                      count: settings.pick(20_000, quick: 800), warmup: settings.pick(1000, quick: 200))
        result.rows = [BenchRow(benchmark: "floor", scenario: "raw DEALER/ROUTER echo, \(startBytes.count) B, 2 processes",
                                latency: floor, floorP50: floor.p50)]
        // etcd as deployed (mutual TLS + auth, the default) beside plaintext (`--etcd-plaintext`), same run.
        for security in [EtcdCluster.Security.mutualTLS, .plaintext] {
            let label = security == .mutualTLS ? "mutual TLS + auth" : "plaintext"
            // Steady state: a suspicion window of 2 s, so that a loaded machine does not fail over mid-run (ha-failover measures failover).
            let cluster = try HACoordinators(settings, directory: "\(dir)/\(security == .mutualTLS ? "tls" : "plaintext")",
                                             count: coordinatorCount, suspicionMs: 2_000, security: security)
            defer { cluster.stop() }
            let leader = try cluster.waitForLeader()
            settings.progress("ha-latency (\(label)): c\(leader) leads; etcd floor, conditional txn round trips")
            let etcd = cluster.etcd
            let txnCount = settings.pick(2000, quick: 200)
            let txn = try Blocking.run {
                // A generous deadline: a benchmark measures round trips, it does not judge them.
                try await etcd.withClient(requestTimeout: .seconds(10)) { client in
                    try await EtcdRoundTrip.measure(client: client, count: txnCount, warmup: 50)
                }
            }.latency

            let coordinator = cluster.coordinators[leader]
            let claims = try ClaimRoundTrips.measure(
                settings, label: "ha-latency", commandEndpoint: coordinator.commandEndpoint, eventEndpoint: coordinator.eventEndpoint,
                count: count, warmup: warmup,
                waitUntilServing: { _ in
                    guard try cluster.leads(leader) == true else { throw BenchError("c\(leader) stopped leading") }
                })
            let target = txn.p50 + 2 * floor.p50
            result.rows += [
                BenchRow(benchmark: "floor", scenario: "raw etcd txn (\(label)): one conditional 64 B put, 3 loopback members",
                         latency: txn, floorP50: txn.p50),
                BenchRow(benchmark: "ha-latency", scenario: "claim → ack + grant, log on etcd (\(label)), "
                         + (coordinatorCount == 1 ? "1 coordinator (no standbys)" : "\(coordinatorCount) coordinators")
                         + ", \(settings.nodes) nodes", latency: claims.claim, rssMB: coordinator.rssMB, floorP50: target),
                BenchRow(benchmark: "ha-latency", scenario: "claim → ack only, log on etcd (\(label))", latency: claims.ack,
                         floorP50: target),
            ]
            result.targets.append(TargetCheck(
                figure: "claim→grant p50, log on etcd (\(label))", measured: claims.claim.p50, .atMost, target, unit: .microseconds,
                basis: "etcd txn p50 \(ReportFormatter.duration(microseconds: txn.p50)) + 2 × echo p50 "
                    + ReportFormatter.duration(microseconds: floor.p50)))
            if claims.missingGrant > 0 {
                result.notes.append("\(label): \(claims.missingGrant) start_session batches had no camera_granted event")
            }
        }
        result.notes.append("the floor column of the ha-latency rows is etcd txn p50 + 2 × echo p50 (the target); the etcd txn "
            + "is the bench's own etcd client (the same CamsyncEtcd code as the coordinator's, over the same transport "
            + "security as the coordinators) against the same 3 members "
            + "(data directories under \(FileManager.default.temporaryDirectory.path)); mutual TLS + auth is how `cluster up` "
            + "runs etcd, plaintext is `--etcd-plaintext`")
        return result
    }
}
