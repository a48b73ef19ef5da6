/// Mutual TLS to etcd (docs/OPERATIONS.md "Certificates"): the CA that signed the members'
/// certificates, and this client's certificate and key (PEM files). With `--client-cert-auth` etcd
/// takes the certificate's common name as the user, whose role decides what it may touch.
public struct EtcdClientTLS: Sendable, Equatable {
    public var trustedCA: String
    public var certificate: String
    public var privateKey: String

    public init(trustedCA: String, certificate: String, privateKey: String) {
        self.trustedCA = trustedCA
        self.certificate = certificate
        self.privateKey = privateKey
    }
}
