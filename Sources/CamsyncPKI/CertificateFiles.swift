import Foundation
import X509

/// Where one issued certificate lives: `DIR/NAME.crt` (PEM) and `DIR/NAME.key` (PEM, PKCS#8, 0600).
public struct CertificateFiles: Sendable, Equatable {
    public var certificate: String
    public var privateKey: String

    public init(directory: String, name: String) {
        certificate = "\(directory)/\(name).crt"
        privateKey = "\(directory)/\(name).key"
    }

    public var exist: Bool {
        FileManager.default.fileExists(atPath: certificate) && FileManager.default.fileExists(atPath: privateKey)
    }
}

/// Writing PEM files: keys with mode 0600, certificates world-readable.
enum PEMFiles {
    static func write(key: Certificate.PrivateKey, to path: String) throws {
        let text = try key.serializeAsPEM().pemString + "\n"
        try? FileManager.default.removeItem(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    static func write(certificate: Certificate, to path: String) throws {
        try (try certificate.serializeAsPEM().pemString + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
