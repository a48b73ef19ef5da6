public import CamsyncEtcdModel
import GRPCNIOTransportHTTP2

extension EtcdClientTLS {
    /// The member's certificate must chain to `trustedCA` (and only to it, not to the system's roots)
    /// and name the address connected to; this client presents its own.
    var transportSecurity: HTTP2ClientTransport.Posix.TransportSecurity {
        .mTLS(certificateChain: [.file(path: certificate, format: .pem)], privateKey: .file(path: privateKey, format: .pem)) {
            $0.trustRoots = .certificates([.file(path: trustedCA, format: .pem)])
            $0.serverCertificateVerification = .fullVerification
        }
    }
}
