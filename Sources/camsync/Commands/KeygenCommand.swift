import ArgumentParser
import CamsyncTopology
import CamsyncPKI
import Foundation
import ZeroMQ

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a CURVE key pair (Z85) to PREFIX.key (secret, mode 0600) and PREFIX.pub; or, with --etcd-certs, "
            + "the etcd path's CA and certificates.",
        discussion: """
            Example:
              camsync keygen /etc/camsync/keys/ipad-1

            Every CURVE key of a topology, with --topology FILE DIR (kept when present): a pair per coordinator \
            (DIR/coordinator-NAME.key, or DIR/coordinator.key for a single one) and DIR/coordinators.txt listing them \
            with their endpoints (what nodes and clients believe: --coordinator-keys), a pair per node and DIR/nodes.txt, \
            and the admin pair. --rotate NAME (a coordinator's or a node's name, or admin) makes that pair anew \
            (docs/OPERATIONS.md "Rotating keys").

            Example:
              camsync keygen --topology deploy/topologies/ha.yaml --rotate c2 \\
                /etc/camsync/keys

            etcd over mutual TLS (docs/OPERATIONS.md "Certificates"): makes DIR/ca.crt + ca.key (kept when present), \
            a server + peer certificate per --member NAME=HOST[,HOST…] and a client certificate per --client NAME \
            (its common name is the etcd user: CLUSTER.NAME for coordinators, root for root). Existing certificates \
            are kept unless --force (renewal: a new key and certificate from the same CA).

            Example:
              camsync keygen --etcd-certs /etc/camsync/tls --cluster site-a \\
                --member etcd-0=10.0.0.1 --member etcd-1=10.0.0.2 \\
                --member etcd-2=10.0.0.3 --client c1 --client c2 --client root
            """)

    @Argument(help: "Path prefix of the two CURVE key files (with --topology: the keys directory).") var prefix: String?
    @Option(help: "Write every CURVE key of this topology into the directory PREFIX (a pair per coordinator).") var topology: String?
    @Option(help: "With --topology: make this pair anew (a coordinator's or node's name, or admin; repeatable).") var rotate: [String] = []
    @Flag(help: "Overwrite existing files.") var force = false
    @Option(help: "Write the etcd CA and certificates into this directory instead of a CURVE pair.") var etcdCerts: String?
    @Option(help: "With --etcd-certs: the camsync cluster's name (the coordinators' etcd users are CLUSTER.NAME).")
    var cluster: String?
    @Option(help: "With --etcd-certs: an etcd member, NAME=HOST[,HOST…] (addresses it is reached at).") var member: [String] = []
    @Option(help: "With --etcd-certs: a client certificate (a coordinator's name, or root).") var client: [String] = []

    func validate() throws {
        switch (prefix, etcdCerts) {
        case (_?, nil): break
        case (nil, _?): guard cluster != nil else { throw ValidationError("--etcd-certs needs --cluster NAME") }
        default: throw ValidationError("give either PREFIX (a CURVE pair) or --etcd-certs DIR")
        }
        for entry in member where !entry.contains("=") { throw ValidationError("--member wants NAME=HOST[,HOST…], not '\(entry)'") }
        if !rotate.isEmpty, topology == nil { throw ValidationError("--rotate needs --topology") }
    }

    func run() throws {
        if let etcdCerts, let cluster { return try writeCertificates(etcdCerts, cluster: cluster) }
        guard let prefix else { return }
        if let topology { return try writeTopologyKeys(topology, into: prefix) }
        let secretPath = prefix + ".key", publicPath = prefix + ".pub"
        let manager = FileManager.default
        if !force, manager.fileExists(atPath: secretPath) || manager.fileExists(atPath: publicPath) {
            throw ValidationError("\(secretPath) or \(publicPath) exists; pass --force to replace it")
        }
        let pair = try CurveKeyPair.generate()
        let directory = (prefix as NSString).deletingLastPathComponent
        if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        guard manager.createFile(atPath: secretPath, contents: Data((pair.secretKey + "\n").utf8),
                                 attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write \(secretPath)")
        }
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretPath)
        try (pair.publicKey + "\n").write(toFile: publicPath, atomically: true, encoding: .utf8)
        print("wrote \(secretPath) (secret, 0600) and \(publicPath) (public)")
    }

    private func writeTopologyKeys(_ path: String, into directory: String) throws {
        let topology = try Topology(path: path)
        let coordinators = topology.allCoordinators.map { (name: topology.processName($0), commands: $0.commands, events: $0.events) }
        let known = coordinators.map(\.name) + topology.nodes.map(\.id) + ["admin"]
        var retiring: [String: String] = [:]
        for name in rotate {
            guard known.contains(name) else { throw ValidationError("--rotate \(name): no coordinator or node of that name (or admin)") }
            let file = coordinators.contains { $0.name == name } ? ClusterKeys.coordinatorKeyName(name) : name
            // A node's old key stays in nodes.txt beside the new one until the node runs on the new one.
            if topology.nodes.contains(where: { $0.id == name }),
               let old = try? readKey("\(directory)/\(file).pub", what: "node public") { retiring[name] = old }
            for suffix in [".key", ".pub"] { try? FileManager.default.removeItem(atPath: "\(directory)/\(file)\(suffix)") }
        }
        let keys = try ClusterKeys.loadOrGenerate(directory: directory, nodes: topology.nodes.map(\.id), coordinators: coordinators,
                                                  retiring: retiring)
        for c in coordinators {
            print("coordinator \(c.name): \(keys.coordinatorSecretKeyPath(c.name)) (public \(keys.coordinators[c.name]!.publicKey))")
        }
        print("coordinators: \(keys.trustedCoordinatorsPath) (give it to every coordinator, node and client: --coordinator-keys)")
        print("nodes: \(keys.path("nodes.txt")) and a pair per node; admin: \(keys.path("admin.key"))")
        if !rotate.isEmpty { print("new pair for \(rotate.joined(separator: ", ")): see docs/OPERATIONS.md \"Rotating keys\" for the order of restarts") }
    }

    private func writeCertificates(_ directory: String, cluster: String) throws {
        let certificates = try EtcdCertificates.open(directory: directory, clusterName: cluster)
        func fresh(_ name: String) {
            guard force else { return }
            let files = certificates.files(name)
            try? FileManager.default.removeItem(atPath: files.certificate)
            try? FileManager.default.removeItem(atPath: files.privateKey)
        }
        for entry in member {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            fresh(parts[0])
            let files = try certificates.member(parts[0], hosts: parts[1].split(separator: ",").map(String.init))
            print("member \(parts[0]): \(files.certificate), \(files.privateKey)")
        }
        for name in client {
            fresh(name)
            let user = EtcdCertificates.user(cluster: cluster, client: name)
            let files = try certificates.client(name, commonName: user)
            print("client \(name) (etcd user \(user)): \(files.certificate), \(files.privateKey)")
        }
        print("CA: \(certificates.trustedCA) (its key \(directory)/ca.key signs every certificate: keep it off the hosts)")
    }
}
