import Foundation
import Testing
import CamsyncWire
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

    @Test("keygen --topology: a pair per coordinator listed in coordinators.txt; --rotate makes one anew (a node's old key stays listed)")
    func topologyKeys() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-topo-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let topology = "\(dir)/ha.yaml"
        try """
            name: ha
            etcd: { members: 3 }
            coordinators:
              - { name: c1, commands: tcp://10.0.0.11:5555, events: tcp://10.0.0.11:5556 }
              - { name: c2, commands: tcp://10.0.0.12:5555, events: tcp://10.0.0.12:5556 }
            nodes:
              - { id: ipad-1, kind: device, device: { os: 17 } }
            """.write(toFile: topology, atomically: true, encoding: .utf8)
        let keys = "\(dir)/keys"
        func run(_ extra: [String] = []) throws {
            var command = try #require(try Camsync.parseAsRoot(["keygen", "--topology", topology, keys] + extra) as? KeygenCommand)
            try command.run()
        }
        func read(_ file: String) throws -> String { try String(contentsOfFile: "\(keys)/\(file)", encoding: .utf8) }
        func publicKey(_ file: String) throws -> String { try read(file).trimmingCharacters(in: .whitespacesAndNewlines) }
        try run()
        let trusted = try TrustedCoordinators(parsing: read("coordinators.txt"), file: "coordinators.txt",
                                              isValidKey: CurveKeyPair.isValidZ85Key)
        #expect(trusted.entries.map(\.name) == ["c1", "c2"])
        #expect(trusted.entries.map(\.publicKey) == [try publicKey("coordinator-c1.pub"), try publicKey("coordinator-c2.pub")])
        #expect(trusted.key(forCommandEndpoint: "tcp://10.0.0.12:5555") == (try publicKey("coordinator-c2.pub")))
        #expect(Set(trusted.entries.map(\.publicKey)).count == 2, "a key pair of its own for each")
        let (c1, c2, node) = (try publicKey("coordinator-c1.pub"), try publicKey("coordinator-c2.pub"), try publicKey("ipad-1.pub"))
        try run()
        #expect(try publicKey("coordinator-c1.pub") == c1, "kept when present")
        try run(["--rotate", "c2", "--rotate", "ipad-1"])
        let (newC1, newC2, newNode) = (try publicKey("coordinator-c1.pub"), try publicKey("coordinator-c2.pub"), try publicKey("ipad-1.pub"))
        #expect(newC1 == c1 && newC2 != c2 && newNode != node)
        let list = try read("coordinators.txt")
        #expect(list.contains(newC2) && !list.contains(c2))
        let nodes = try read("nodes.txt")
        #expect(nodes.contains("ipad-1 \(node)") && nodes.contains("ipad-1 \(newNode)"),
                "the node's old key stays listed beside the new one until it runs on it")
        #expect(throws: (any Error).self) { try run(["--rotate", "c9"]) }
    }
}
