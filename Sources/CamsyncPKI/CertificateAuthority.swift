import Crypto
public import Foundation
import SwiftASN1
public import X509

/// A small certificate authority for a camsync cluster's etcd path (docs/OPERATIONS.md "Certificates"):
/// a self-signed P-256 CA kept as `ca.crt` / `ca.key` in a directory, which issues the etcd members'
/// server + peer certificates and the clients' (coordinators', the lab's `root`) client certificates.
/// Made with swift-certificates and swift-crypto: nothing to shell out to.
public struct CertificateAuthority: Sendable {
    public let directory: String
    public let certificate: Certificate
    let key: Certificate.PrivateKey

    public var certificatePath: String { "\(directory)/ca.crt" }

    /// The authority in `directory`: loaded from `ca.crt` / `ca.key`, or created (valid `validity`)
    /// when they are missing. `name` is the CA's common name (new authorities only).
    public static func loadOrCreate(directory: String, name: String, validity: TimeInterval = CertificateAuthority.tenYears,
                                    now: Date = Date()) throws -> CertificateAuthority {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let certificatePath = "\(directory)/ca.crt", keyPath = "\(directory)/ca.key"
        if FileManager.default.fileExists(atPath: certificatePath) {
            try PEMFiles.keepPrivate(keyPath)
            let certificate = try Certificate(pemEncoded: try String(contentsOfFile: certificatePath, encoding: .utf8))
            let key = try Certificate.PrivateKey(pemEncoded: try String(contentsOfFile: keyPath, encoding: .utf8))
            return CertificateAuthority(directory: directory, certificate: certificate, key: key)
        }
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let subject = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(validity),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: key)
        try PEMFiles.write(key: key, to: keyPath)
        try PEMFiles.write(certificate: certificate, to: certificatePath)
        return CertificateAuthority(directory: directory, certificate: certificate, key: key)
    }

    public static let tenYears: TimeInterval = 10 * 365 * 86_400
    public static let oneYear: TimeInterval = 365 * 86_400

    /// Issues a certificate for `commonName` with a new key, written to `directory/file.crt` and
    /// `.key` (0600), replacing what is there. `notBefore`/`validity` are parameters so that tests
    /// can make expired certificates.
    @discardableResult
    public func issue(_ request: CertificateRequest, file: String, in directory: String? = nil,
                      notBefore: Date = Date().addingTimeInterval(-300),
                      validity: TimeInterval = CertificateAuthority.oneYear) throws -> CertificateFiles {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: key.publicKey,
            notValidBefore: notBefore, notValidAfter: notBefore.addingTimeInterval(validity),
            issuer: self.certificate.subject, subject: try DistinguishedName { CommonName(request.commonName) },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: try request.extensions(), issuerPrivateKey: self.key)
        let files = CertificateFiles(directory: directory ?? self.directory, name: file)
        try PEMFiles.write(key: key, to: files.privateKey)
        try PEMFiles.write(certificate: certificate, to: files.certificate)
        return files
    }
}
