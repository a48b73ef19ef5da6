import CamsyncClient
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncProcessLab
import CamsyncTopology
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ
#if canImport(Glibc)
import Glibc
import CamsyncEtcdModel
#endif

/// Rotating every credential of a live HA cluster (CURVE on, etcd over mutual TLS) under a
/// stream of claims from three nodes, as docs/OPERATIONS.md "Rotating keys and certificates" says:
/// a coordinator's CURVE key, then a node's CURVE key, then every coordinator's etcd certificate.
/// Nothing acknowledged is lost, no claim fails (a node's stream pauses while that node restarts),
/// and the old credentials are refused afterwards.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(8)))
struct CertificateRotationTests {
    typealias HA = HighAvailabilityTests

    /// SIGTERM (a leader hands over), then start it again, and wait until it answers as a leader or
    /// as a standby that names one.
    static func restart(_ name: String, _ cluster: LocalCluster) throws {
        cluster.coordinators[name]?.signal(SIGTERM)
        _ = cluster.coordinators[name]?.stop(grace: 10)
        try cluster.startCoordinator(named: name)
        try waitServing(name, cluster)
    }

    static func waitServing(_ name: String, _ cluster: LocalCluster) throws {
        try cluster.waitUntil(timeout: 30, what: "\(name) to serve again") {
            let client = try cluster.coordinatorClient(named: name)
            defer { client.close() }
            do { _ = try client.snapshot(timeoutMilliseconds: 1000); return true } catch let error as ClientError {
                return error.refusal?.code == .notLeader && error.refusal?.leader != nil
            }
        }
    }

    /// Every coordinator (but `skipped`, which is not running) restarted in turn: the standbys first,
    /// the leader last; `before` runs before each one stops.
    static func rollingRestart(_ cluster: LocalCluster, skipping skipped: String? = nil,
                               before: (String) async throws -> Void = { _ in }) async throws -> [String] {
        let leader = try HA.leader(cluster)
        let order = cluster.topology.coordinatorProcessNames.filter { $0 != leader && $0 != skipped } + [leader]
        for name in order {
            try await before(name)
            try restart(name, cluster)
        }
        return order
    }

    /// A node restarted on the keys now on disk, its claims paused meanwhile.
    static func restartNode(_ node: String, _ cluster: LocalCluster, _ streams: ClaimStreams) throws {
        streams.pause(node)
        cluster.nodes[node]?.signal(SIGTERM)
        _ = cluster.nodes[node]?.stop(grace: 10)
        try cluster.startNode(node)
        try cluster.waitUntilJoined(timeout: 30)
        try streams.resume(node)
    }

    /// One request over CURVE with `pair` as the client's key and `serverKey` as the coordinator's:
    /// nil when nothing answers (a refused handshake is silent). Its routing id is no node's, so a key
    /// that were admitted would get an answer (FORBIDDEN for a node's key), never silence.
    static func probe(_ endpoint: String, pair: CurveKeyPair, serverKey: String, as sender: String) throws -> Envelope? {
        let curve = ClientCurve(publicKey: pair.publicKey, secretKey: pair.secretKey, serverPublicKey: serverKey)
        return try RequestProbe(endpoint: endpoint, curve: curve, routingID: "probe")
            .send(Envelope(sender: sender, requestID: 7, term: 0, body: .snapshotRequest(.init())), timeoutMilliseconds: 2_000)
    }

    @Test("rotating a coordinator's key, a node's key and the etcd certificates under claims: nothing lost, the old ones refused")
    func rotateEverything() async throws {
        // Liveness 3 s, not 1 s: this test is about credentials, and in a loaded full run (it took
        // 197 s there, 15 s alone) a node's heartbeats were once late by more than a second.
        try await HA.withHACluster(curve: true, liveness: 15) { cluster in
            let streams = try ClaimStreams(cluster)
            defer { streams.stopAll() }
            let keys = try #require(cluster.keys)
            func moreClaims(_ what: String) throws {
                let before = streams.acked
                try cluster.waitUntil(timeout: 30, what: "claims acknowledged \(what)") { streams.acked >= before + 3 }
            }
            try moreClaims("at start")

            // 1. A coordinator's CURVE key (docs: a standby, stopped while the nodes learn its new key).
            let leader = try HA.leader(cluster)
            let rotated = try #require(cluster.topology.coordinatorProcessNames.first { $0 != leader })
            let oldCoordinatorKey = try #require(keys.coordinators[rotated]).publicKey
            cluster.coordinators[rotated]?.signal(SIGTERM)
            _ = cluster.coordinators[rotated]?.stop(grace: 10)
            for suffix in [".key", ".pub"] {
                try FileManager.default.removeItem(atPath: keys.path(ClusterKeys.coordinatorKeyName(rotated) + suffix))
            }
            try cluster.reloadKeys()   // a new pair, and coordinators.txt lists it
            for node in HA.devices + ["display-1"] { try Self.restartNode(node, cluster, streams) }
            _ = try await Self.rollingRestart(cluster, skipping: rotated)
            try cluster.startCoordinator(named: rotated)
            try Self.waitServing(rotated, cluster)
            try moreClaims("after rotating \(rotated)'s key")
            let newCoordinatorKey = try #require(cluster.keys?.coordinators[rotated]).publicKey
            #expect(newCoordinatorKey != oldCoordinatorKey)

            // 2. A node's CURVE key: both listed while the coordinators restart, then the node, then the old one removed.
            let node = "ipad-1"
            let oldNodePair = try #require(keys.nodes[node])
            for suffix in [".key", ".pub"] { try FileManager.default.removeItem(atPath: keys.path(node + suffix)) }
            try cluster.reloadKeys(retiring: [node: oldNodePair.publicKey])
            _ = try await Self.rollingRestart(cluster)
            try Self.restartNode(node, cluster, streams)
            try moreClaims("from \(node) on its new key")
            try cluster.reloadKeys()   // nodes.txt: only the new key
            _ = try await Self.rollingRestart(cluster)
            try moreClaims("once \(node)'s old key is gone")

            // 3. The etcd certificates: each coordinator under a new etcd user with the cluster's role, then the old users deleted.
            let order = try await Self.rollingRestart(cluster) { name in
                let identity = "\(name)-r2"
                _ = try cluster.etcdClientTLS(as: identity)  // the new key and certificate, from the same CA
                try await cluster.withEtcdClient {
                    try await $0.grantPrefix(cluster.etcdPrefix, role: cluster.topology.etcdRole, users: [cluster.topology.etcdUser(identity)])
                }
                cluster.etcdIdentity[name] = identity
            }
            let oldCertificates = try Dictionary(uniqueKeysWithValues: order.map { name in
                (name, try #require(try cluster.etcdClientTLS(as: name)))
            })
            for name in order {
                try await cluster.withEtcdClient { try await $0.deleteUser(cluster.topology.etcdUser(name)) }
            }
            try moreClaims("once the old etcd users are gone")
            streams.stopAll()

            // The old credentials are refused. The old coordinator key: nobody serves with it any more.
            let rotatedEndpoint = try #require(cluster.topology.allCoordinators.first { cluster.topology.processName($0) == rotated }?.commands)
            let admin = cluster.keys!.admin
            #expect(try Self.probe(rotatedEndpoint, pair: admin, serverKey: oldCoordinatorKey, as: "admin") == nil,
                    "a client holding \(rotated)'s old key gets no answer from it")
            #expect(try Self.probe(rotatedEndpoint, pair: admin, serverKey: newCoordinatorKey, as: "admin") != nil)
            // The old node key: the coordinators' ZAP handler refuses it.
            let leaderEndpoint = try cluster.leaderCommandEndpoint()
            #expect(try Self.probe(leaderEndpoint, pair: oldNodePair, serverKey: cluster.adminCurve!.serverKey(forCommandEndpoint: leaderEndpoint)!,
                                   as: node) == nil, "\(node)'s old key is refused")
            // The old certificates: valid, same CA, but their users are gone — etcd refuses them.
            let endpoints = try cluster.etcdEndpoints.map { try EtcdEndpoint(parsing: $0) }
            for (name, tls) in oldCertificates {
                let refusal: EtcdError? = try await EtcdClient.with(endpoints: endpoints, settings: .init(tls: tls)) { client in
                    do { _ = try await client.range(prefix: cluster.etcdPrefix + "/log/"); return nil } catch let error as EtcdError { return error }
                }
                #expect(refusal?.code == .denied, "\(name)'s old certificate: \(String(describing: refusal))")
            }
            try await streams.expectNothingLost()
            print("rotated \(rotated)'s key, \(node)'s key and every certificate under \(streams.acked) acknowledged claims; old ones refused")
        }
    }
}
}
