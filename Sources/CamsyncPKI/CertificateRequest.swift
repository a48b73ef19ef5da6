import SwiftASN1
public import X509

/// What a certificate is for: its common name (an etcd client's user name) and whether it serves
/// (an etcd member: server + peer, with the addresses it is reached at) or only authenticates a client.
public struct CertificateRequest: Sendable, Equatable {
    public enum Use: Sendable, Equatable {
        /// A client certificate (coordinators, tools): extended key usage clientAuth.
        case client
        /// An etcd member: serverAuth + clientAuth (peers are clients of each other), valid for
        /// `hosts` (IPv4 literals become IP SANs, anything else a DNS name).
        case member(hosts: [String])
    }

    public var commonName: String
    public var use: Use

    public init(commonName: String, use: Use) {
        self.commonName = commonName
        self.use = use
    }

    public static func client(_ commonName: String) -> CertificateRequest { .init(commonName: commonName, use: .client) }
    public static func member(_ name: String, hosts: [String]) -> CertificateRequest { .init(commonName: name, use: .member(hosts: hosts)) }

    func extensions() throws -> Certificate.Extensions {
        let usage: ExtendedKeyUsage
        var names: [GeneralName] = []
        switch use {
        case .client:
            usage = try ExtendedKeyUsage([.clientAuth])
        case .member(let hosts):
            usage = try ExtendedKeyUsage([.serverAuth, .clientAuth])
            for host in Set(hosts + ["127.0.0.1", "localhost"]).sorted() {
                if let octets = Self.ipv4(host) { names.append(.ipAddress(ASN1OctetString(contentBytes: octets[...]))) }
                else { names.append(.dnsName(host)) }
            }
        }
        return try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
            usage
            if !names.isEmpty { SubjectAlternativeNames(names) }
        }
    }

    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        return parts.count == 4 && text.split(separator: ".", omittingEmptySubsequences: false).count == 4 ? parts : nil
    }
}
