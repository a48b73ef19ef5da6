import CamsyncEtcd
import CamsyncProcessLab
import CamsyncPKI
import Foundation
import Testing
import CamsyncEtcdModel

extension LiveEtcdTests {
    /// etcd as camsync runs it (docs/OPERATIONS.md "Certificates", "etcd auth"): https with client
    /// certificates required, auth on, a role per camsync cluster holding only its prefix. Real etcd
    /// members; every client below is a real gRPC client over TLS, and what etcd answers is printed.
    @Suite struct AccessTests {
        /// Who knocks: each a client certificate (or none), and what it may do.
        enum Client: String, CaseIterable, CustomTestStringConvertible {
            /// Plain http to the https port: no certificate at all.
            case noCertificate
            /// A certificate with this cluster's coordinator's name, from another CA.
            case otherCA
            /// A certificate from the right CA that expired yesterday.
            case expired
            /// A valid certificate whose common name is no etcd user.
            case unknownUser
            /// A valid certificate of a user that has no role.
            case userWithoutRole
            /// A valid coordinator certificate of another camsync cluster (role on /camsync/other/).
            case otherCluster
            /// This cluster's coordinator.
            case thisCluster

            var testDescription: String { rawValue }
        }

        static let prefix = "/camsync/ha"

        /// The etcd client settings of `client` against `cluster` (certificates made in `scratch`).
        static func settings(_ client: Client, cluster: EtcdCluster, scratch: String) throws -> EtcdClient.Settings {
            let certificates = try #require(cluster.certificates)
            var settings = EtcdClient.Settings(requestTimeout: .seconds(3))
            func tls(_ files: CertificateFiles) -> EtcdClientTLS {
                EtcdClientTLS(trustedCA: certificates.trustedCA, certificate: files.certificate, privateKey: files.privateKey)
            }
            switch client {
            case .noCertificate:
                settings.tls = nil
            case .otherCA:
                let other = try CertificateAuthority.loadOrCreate(directory: scratch + "/other-ca", name: "someone else's CA")
                settings.tls = tls(try other.issue(.client("ha.c1"), file: "ha.c1"))
            case .expired:
                settings.tls = tls(try certificates.authority.issue(.client("ha.c1"), file: "expired", in: scratch,
                                                                      notBefore: Date().addingTimeInterval(-2 * 86_400),
                                                                      validity: 86_400))
            case .unknownUser: settings.tls = tls(try certificates.client("stranger"))
            case .userWithoutRole: settings.tls = tls(try certificates.client("ha.lonely"))
            case .otherCluster: settings.tls = tls(try certificates.client("other.c1"))
            case .thisCluster: settings.tls = tls(try certificates.client("ha.c1"))
            }
            return settings
        }

        /// What `client` gets for a read and for a write under `prefix`: nil (allowed) or etcd's refusal.
        static func attempt(_ client: Client, prefix: String, cluster: EtcdCluster, scratch: String) async throws
            -> (read: EtcdError?, write: EtcdError?) {
            try await EtcdClient.with(endpoints: cluster.endpoints, settings: settings(client, cluster: cluster, scratch: scratch)) { etcd in
                func outcome(_ operation: () async throws -> Void) async -> EtcdError? {
                    do { try await operation(); return nil } catch let error as EtcdError { return error } catch {
                        return EtcdError(.protocolViolation, "\(error)")
                    }
                }
                let read = await outcome { _ = try await etcd.range(prefix: prefix + "/log/") }
                let write = await outcome { try await etcd.put(prefix + "/log/\(client.rawValue)", Array("forged turn".utf8)) }
                return (read, write)
            }
        }

        /// One cluster for every case: TLS, and auth with a role for this camsync cluster (`ha`) and one
        /// for another (`other`), as two `cluster up`s on one etcd would leave it.
        static func withSecuredEtcd(_ body: (EtcdCluster, String) async throws -> Void) async throws {
            let cluster = try await EtcdCluster.start()
            defer { cluster.stop() }
            let scratch = cluster.directory + "/scratch"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            try await cluster.configureAuth([
                EtcdAccessGrant(prefix: prefix, role: "camsync-ha", users: ["ha.c1"]),
                EtcdAccessGrant(prefix: "/camsync/other", role: "camsync-other", users: ["other.c1"]),
            ])
            try await cluster.withClient { try await $0.addUser("ha.lonely") }
            try await body(cluster, scratch)
        }

        @Test("only this cluster's coordinator reads and writes its prefix; everyone else is refused by etcd")
        func access() async throws {
            try await Self.withSecuredEtcd { cluster, scratch in
                for client in Client.allCases {
                    let (read, write) = try await Self.attempt(client, prefix: Self.prefix, cluster: cluster, scratch: scratch)
                    print("etcd access \(client.rawValue): read → \(read.map(String.init(describing:)) ?? "allowed"); "
                          + "write → \(write.map(String.init(describing:)) ?? "allowed")")
                    switch client {
                    case .thisCluster:
                        #expect(read == nil && write == nil, "\(client)")
                    case .noCertificate, .otherCA, .expired:
                        // Refused by the TLS handshake: etcd never sees a request, and says so in its log.
                        #expect(read?.code == .unavailable && write?.code == .unavailable, "\(client): \(String(describing: read))")
                    case .unknownUser, .userWithoutRole, .otherCluster:
                        #expect(read?.code == .denied && write?.code == .denied, "\(client): \(String(describing: read))")
                        #expect(read?.message.contains("permission denied") == true, "\(client): \(String(describing: read))")
                    }
                }
                // etcd's side of the refused handshakes (its log): each one rejected, with the reason.
                let rejections = cluster.members.indices.flatMap { index in
                    cluster.logTail(index, lines: 400).split(separator: "\n").filter { $0.contains("rejected connection") }
                }
                print("etcd's log:\n" + rejections.prefix(6).joined(separator: "\n"))
                for reason in ["does not look like a TLS handshake", "certificate signed by unknown authority", "certificate has expired"] {
                    #expect(rejections.contains { $0.contains(reason) }, "etcd rejected a connection: \(reason)")
                }
                // Nothing but this cluster's own write landed under its prefix.
                let keys = try await cluster.withClient { try await $0.range(prefix: Self.prefix + "/") }.keyValues.map(\.key)
                #expect(keys == [Self.prefix + "/log/thisCluster"])
            }
        }

        @Test("a role's prefix ends at the slash: /camsync/ha's coordinator cannot touch /camsync/ha2 or /camsync/other",
              arguments: ["/camsync/ha2", "/camsync/other"])
        func prefixBoundary(_ neighbour: String) async throws {
            try await Self.withSecuredEtcd { cluster, scratch in
                let (read, write) = try await Self.attempt(.thisCluster, prefix: neighbour, cluster: cluster, scratch: scratch)
                #expect(read?.code == .denied && write?.code == .denied, "\(String(describing: read)) / \(String(describing: write))")
                // The other cluster's coordinator does own its prefix (the refusal above is not a broken certificate).
                let own = try await Self.attempt(.otherCluster, prefix: "/camsync/other", cluster: cluster, scratch: scratch)
                #expect(own.read == nil && own.write == nil)
            }
        }

        @Test("a deleted user's certificate stops working at once, though it has not expired")
        func deletedUser() async throws {
            try await Self.withSecuredEtcd { cluster, scratch in
                #expect(try await Self.attempt(.thisCluster, prefix: Self.prefix, cluster: cluster, scratch: scratch).write == nil)
                try await cluster.withClient { try await $0.deleteUser("ha.c1") }
                let after = try await Self.attempt(.thisCluster, prefix: Self.prefix, cluster: cluster, scratch: scratch)
                #expect(after.read?.code == .denied && after.write?.code == .denied)
            }
        }
    }
}
