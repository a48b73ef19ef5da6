import ArgumentParser
import CamsyncEtcd
import CamsyncEtcdModel

/// How an HA coordinator reaches etcd: mutual TLS (`--etcd-ca`, `--etcd-cert`, `--etcd-key`), or
/// plaintext only when asked for by name (`--etcd-plaintext`, a lab; the coordinator warns in its log).
struct EtcdSecurityOptions: ParsableArguments {
    @Option(help: "HA mode: the CA (PEM) that signed the etcd members' certificates.") var etcdCa: String?
    @Option(help: "HA mode: this coordinator's client certificate (PEM); its common name is its etcd user.") var etcdCert: String?
    @Option(help: "HA mode: the private key (PEM) of --etcd-cert.") var etcdKey: String?
    @Flag(help: "HA mode: talk to etcd in plaintext, unauthenticated (a lab only; logged as a warning).") var etcdPlaintext = false

    /// The TLS settings, nil with `--etcd-plaintext`; throws unless exactly one of the two is given.
    func tls() throws -> EtcdClientTLS? {
        switch (etcdCa, etcdCert, etcdKey, etcdPlaintext) {
        case (nil, nil, nil, true): return nil
        case (let ca?, let cert?, let key?, false): return EtcdClientTLS(trustedCA: ca, certificate: cert, privateKey: key)
        case (_, _, _, true): throw ValidationError("--etcd-plaintext excludes --etcd-ca, --etcd-cert and --etcd-key")
        default:
            throw ValidationError("--etcd needs --etcd-ca, --etcd-cert and --etcd-key (mutual TLS), or --etcd-plaintext for a lab")
        }
    }
}
