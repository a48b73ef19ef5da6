import CamsyncClient
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncLab
import Foundation
import Testing
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Issue 26: rotating the coordinators' etcd certificates on a live HA cluster, under a stream of
/// claims from three nodes, as docs/OPERATIONS.md "Renewal and rotation" says: each coordinator in
/// turn (standbys first, the leader last) gets a new key and certificate under a new etcd user with
/// the cluster's role and restarts on it; then the old users are deleted. Nothing acknowledged is
/// lost, no claim fails, and the old certificates are refused by etcd afterwards.
extension EtcdBackedTests {
@Suite(.serialized, .timeLimit(.minutes(4)))
struct CertificateRotationTests {
    @Test("rolling rotation of every coordinator's etcd certificate under claims: nothing lost, the old certificates refused")
    func rotateCoordinatorCertificates() async throws {
        try await HighAvailabilityTests.withHACluster { cluster in
            let leader = try HighAvailabilityTests.leader(cluster)
            let order = cluster.topology.coordinatorProcessNames.filter { $0 != leader } + [leader]
            let old = try Dictionary(uniqueKeysWithValues: order.map { ($0, try #require(try cluster.etcdClientTLS(as: $0))) })
            let stop = Locked(false)
            let streams = HighAvailabilityTests.devices.map(HighAvailabilityTests.ClaimStream.init)
            let workers = try streams.map { stream in try JoinableThread { stream.run(cluster, until: stop) } }
            defer { stop.withLock { $0 = true }; workers.forEach { $0.join() } }
            func acked() -> Int { streams.map { $0.acks.withLock { $0.count } }.reduce(0, +) }

            for name in order {
                let before = acked()
                let identity = "\(name)-r2"
                _ = try cluster.etcdClientTLS(as: identity)  // the new key and certificate, from the same CA
                try await cluster.withEtcdClient {
                    try await $0.grantPrefix(cluster.etcdPrefix, role: cluster.topology.etcdRole,
                                             users: [cluster.topology.etcdUser(identity)])
                }
                cluster.etcdIdentity[name] = identity
                cluster.coordinators[name]?.signal(SIGTERM)
                _ = cluster.coordinators[name]?.stop(grace: 10)
                try cluster.startCoordinator(named: name)
                try cluster.waitUntil(timeout: 30, what: "\(name) to serve again on its new certificate") {
                    let client = try cluster.coordinatorClient(named: name)
                    defer { client.close() }
                    do { _ = try client.snapshot(timeoutMilliseconds: 1000); return true } catch let error as ClientError {
                        return error.refusal?.code == .notLeader && error.refusal?.leader != nil
                    }
                }
                try cluster.waitUntil(timeout: 30, what: "claims acknowledged after rotating \(name)") { acked() >= before + 3 }
            }
            for name in order {
                try await cluster.withEtcdClient { try await $0.deleteUser(cluster.topology.etcdUser(name)) }
            }
            let after = acked()
            try cluster.waitUntil(timeout: 30, what: "claims acknowledged once the old users are gone") { acked() >= after + 3 }
            stop.withLock { $0 = true }
            workers.forEach { $0.join() }

            // The old certificates: valid, same CA, but their users are gone — etcd refuses them.
            let endpoints = try cluster.etcdEndpoints.map { try EtcdEndpoint(parsing: $0) }
            for (name, tls) in old {
                let refusal: EtcdError? = try await EtcdClient.with(endpoints: endpoints, settings: .init(tls: tls)) { client in
                    do { _ = try await client.range(prefix: cluster.etcdPrefix + "/log/"); return nil } catch let error as EtcdError { return error }
                }
                #expect(refusal?.code == .denied, "\(name)'s old certificate: \(String(describing: refusal))")
            }
            // Nothing acknowledged is lost: every ack is its node's command in the log on etcd, exactly once.
            let log = try await HighAvailabilityTests.etcdLog(cluster)
            #expect(log.map(\.sequence) == Array(1...UInt64(log.count)), "the log is gap-free")
            let bySequence = Dictionary(uniqueKeysWithValues: log.map { ($0.sequence, $0) })
            var all: [UInt64] = []
            for stream in streams {
                let acks = stream.acks.withLock { $0 }
                all += acks
                for sequence in acks { #expect(bySequence[sequence]?.node == stream.node, "ack \(sequence) to \(stream.node)") }
            }
            #expect(Set(all).count == all.count, "no sequence acknowledged twice")
            let failures = streams.flatMap { $0.failures.withLock { $0 } }
            #expect(failures.isEmpty, "no claim failed: \(failures.prefix(3))")
            print("rotated \(order.joined(separator: ", ")) under \(all.count) acknowledged claims; old certificates refused")
        }
    }
}
}
