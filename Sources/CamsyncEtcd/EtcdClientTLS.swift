import GRPCNIOTransportHTTP2

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

    /// The member's certificate must chain to `trustedCA` (and only to it, not to the system's roots)
    /// and name the address connected to; this client presents its own.
    var transportSecurity: HTTP2ClientTransport.Posix.TransportSecurity {
        .mTLS(certificateChain: [.file(path: certificate, format: .pem)], privateKey: .file(path: privateKey, format: .pem)) {
            $0.trustRoots = .certificates([.file(path: trustedCA, format: .pem)])
            $0.serverCertificateVerification = .fullVerification
        }
    }
}
