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
}
