import Foundation

/// The certificates of one camsync cluster's etcd path, in one directory (docs/OPERATIONS.md
/// "Certificates"): `ca.crt`/`ca.key` (the cluster's CA), `MEMBER.crt`/`.key` for each etcd member
/// (server + peer), and `NAME.crt`/`.key` for each client — a coordinator (its common name is its etcd
/// user) or `root` (the lab's administrator, which sets up users and roles).
public struct EtcdCertificates: Sendable {
    public let authority: CertificateAuthority
    public var directory: String { authority.directory }
    public var trustedCA: String { authority.certificatePath }

    /// The certificates in `directory`, creating the CA when it is missing (named `authorityName`,
    /// default "camsync CLUSTER etcd CA"). An existing CA key is kept readable by its owner only.
    public static func open(directory: String, clusterName: String, authorityName: String? = nil) throws -> EtcdCertificates {
        EtcdCertificates(authority: try .loadOrCreate(directory: directory, name: authorityName ?? "camsync \(clusterName) etcd CA"))
    }

    /// The etcd user (client certificate common name) of client `client` of camsync cluster `cluster`:
    /// `CLUSTER.CLIENT` (a coordinator: each can be retired alone), or `root` for the administrator.
    public static func user(cluster: String, client: String) -> String { client == "root" ? "root" : "\(cluster).\(client)" }

    public func files(_ name: String) -> CertificateFiles { CertificateFiles(directory: directory, name: name) }

    /// Member `name`'s server + peer certificate for `hosts`, issued when missing.
    @discardableResult
    public func member(_ name: String, hosts: [String]) throws -> CertificateFiles {
        try ensure(.member(name, hosts: hosts), file: name)
    }

    /// The client certificate `file` with common name (etcd user) `commonName`, issued when missing.
    @discardableResult
    public func client(_ file: String, commonName: String? = nil) throws -> CertificateFiles {
        try ensure(.client(commonName ?? file), file: file)
    }

    private func ensure(_ request: CertificateRequest, file: String) throws -> CertificateFiles {
        let files = files(file)
        return files.exist ? files : try authority.issue(request, file: file)
    }
}
