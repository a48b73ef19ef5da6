import Foundation
import X509
#if canImport(Glibc)
import Glibc
#endif

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
    /// A key is created with mode 0600 from its first byte (never written first and restricted after).
    static func write(key: Certificate.PrivateKey, to path: String) throws {
        let bytes = Array((try key.serializeAsPEM().pemString + "\n").utf8)
        try? FileManager.default.removeItem(atPath: path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fchmod(fd, 0o600) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Makes an existing key readable by its owner only (a key left looser by an earlier run or a copy).
    static func keepPrivate(_ path: String) throws {
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
        if mode & 0o077 != 0 { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
    }

    static func write(certificate: Certificate, to path: String) throws {
        try (try certificate.serializeAsPEM().pemString + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
