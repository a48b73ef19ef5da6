import Foundation
import Testing
import ZeroMQ
@testable import camsync

@Suite struct KeygenTests {
    @Test("keygen writes a Z85 pair; the secret file is 0600; it refuses to overwrite without --force")
    func writesKeyPair() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-keys-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let prefix = "\(dir)/ipad-1"
        var command = try #require(try Camsync.parseAsRoot(["keygen", prefix]) as? KeygenCommand)
        try command.run()
        let secret = try String(contentsOfFile: prefix + ".key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let publicKey = try String(contentsOfFile: prefix + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(CurveKeyPair.isValidZ85Key(secret) && CurveKeyPair.isValidZ85Key(publicKey))
        #expect(try CurveKeyPair(secretKey: secret).publicKey == publicKey)
        let permissions = try FileManager.default.attributesOfItem(atPath: prefix + ".key")[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        command = try #require(try Camsync.parseAsRoot(["keygen", prefix]) as? KeygenCommand)
        #expect(throws: (any Error).self) { try command.run() }
        command = try #require(try Camsync.parseAsRoot(["keygen", prefix, "--force"]) as? KeygenCommand)
        try command.run()
        #expect(try String(contentsOfFile: prefix + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) != publicKey)
    }

    @Test("keygen --etcd-certs: a CA, member and client certificates (keys 0600); a second run keeps them, --force renews all but the CA")
    func etcdCertificates() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-tls-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let arguments = ["keygen", "--etcd-certs", dir, "--cluster", "site-a", "--member", "etcd-0=10.0.0.1,etcd-0.lab",
                         "--client", "c1", "--client", "root"]
        func run(_ extra: [String] = []) throws {
            var command = try #require(try Camsync.parseAsRoot(arguments + extra) as? KeygenCommand)
            try command.run()
        }
        func read(_ file: String) throws -> String { try String(contentsOfFile: "\(dir)/\(file)", encoding: .utf8) }
        try run()
        for file in ["ca.crt", "etcd-0.crt", "c1.crt", "root.crt"] {
            #expect(try read(file).hasPrefix("-----BEGIN CERTIFICATE-----"), "\(file)")
        }
        for file in ["ca.key", "etcd-0.key", "c1.key", "root.key"] {
            #expect(try read(file).hasPrefix("-----BEGIN PRIVATE KEY-----"), "\(file)")
            #expect(try FileManager.default.attributesOfItem(atPath: "\(dir)/\(file)")[.posixPermissions] as? Int == 0o600, "\(file)")
        }
        let (ca, c1) = (try read("ca.crt"), try read("c1.crt"))
        try run()
        #expect(try read("ca.crt") == ca && read("c1.crt") == c1, "existing certificates are kept")
        try run(["--force"])
        #expect(try read("ca.crt") == ca, "the CA is never replaced")
        #expect(try read("c1.crt") != c1, "--force renews the others")
        #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["keygen", "--etcd-certs", dir]) }
        #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["keygen", "/tmp/k", "--etcd-certs", dir, "--cluster", "x"]) }
    }
}
