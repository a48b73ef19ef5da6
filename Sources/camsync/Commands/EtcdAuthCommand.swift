import ArgumentParser
import CamsyncEtcd
import CamsyncEtcdModel

/// Sets up etcd auth for one camsync cluster (docs/OPERATIONS.md "Certificates and etcd auth"): a
/// role that reads and writes only under the cluster's prefix, one certificate-only user per
/// coordinator with that role, the root user, then `auth enable`. Run with root's certificate.
/// Idempotent. `cluster up` runs it for the etcd it starts in network namespaces.
struct EtcdAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "etcd-auth",
        abstract: "Give a camsync cluster's coordinators a role limited to its etcd prefix, and turn etcd auth on.",
        discussion: """
            Example (as root's certificate, made by camsync keygen --etcd-certs … --client root):
              camsync etcd-auth --etcd https://10.0.0.1:2379 \\
                --etcd-ca ca.crt --etcd-cert root.crt --etcd-key root.key \\
                --prefix /camsync/site-a --role camsync-site-a \\
                --user site-a.c1 --user site-a.c2
            """)

    @Option(help: "etcd client URLs, comma-separated.") var etcd: String
    @OptionGroup var etcdSecurity: EtcdSecurityOptions
    @Option(help: "The camsync cluster's key prefix on etcd (its coordinators' --etcd-prefix).") var prefix: String
    @Option(help: "The role to create (camsync-CLUSTER).") var role: String
    @Option(help: "A coordinator's etcd user: its certificate's common name (CLUSTER.NAME). Repeat for each.") var user: [String] = []

    func validate() throws {
        do { _ = try EtcdEndpoint.list(parsing: etcd) } catch { throw ValidationError("--etcd: \(error)") }
        guard try etcdSecurity.tls() != nil else { throw ValidationError("etcd auth needs TLS: users are certificate names") }
        guard prefix.hasPrefix("/"), prefix.count > 1 else { throw ValidationError("--prefix must be a key prefix such as /camsync/site-a") }
    }

    func run() async throws {
        let grant = EtcdAccessGrant(prefix: prefix, role: role, users: user)
        let settings = EtcdClient.Settings(requestTimeout: .seconds(10), tls: try etcdSecurity.tls())
        try await EtcdClient.with(endpoints: try EtcdEndpoint.list(parsing: etcd), settings: settings) { try await $0.secure([grant]) }
        print("etcd auth on: role \(role) reads and writes \(prefix)/…; users \(user.joined(separator: ", "))")
    }
}
