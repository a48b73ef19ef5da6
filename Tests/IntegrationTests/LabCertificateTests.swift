import CamsyncProcessLab
import CamsyncTopology
import Foundation
import Testing

/// `cluster up`'s etcd CA is a lab CA, and says so; its key is readable by its owner only
/// (docs/OPERATIONS.md "Certificates and etcd auth": production keeps the CA key offline).
@Suite struct LabCertificateTests {
    @Test("the lab CA's key is 0600 — also when an earlier run left it looser — and LAB-CA.txt says what it is")
    func labCA() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-labca-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let topology = try Topology(yaml: """
            name: labca
            etcd: { members: 3 }
            coordinators:
              - { name: c1, commands: tcp://127.0.0.1:1, events: tcp://127.0.0.1:2 }
            nodes:
              - { id: display-1, kind: display }
            """)
        // Nothing is started: asking for a client's files makes the CA and issues them.
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: "/bin/false")
        let tls = try #require(try cluster.etcdClientTLS(as: "root"))
        let key = "\(dir)/tls/ca.key"
        func mode(_ path: String) throws -> Int { try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) }
        #expect(try mode(key) == 0o600)
        #expect(try mode(tls.privateKey) == 0o600)
        let notice = try String(contentsOfFile: "\(dir)/tls/LAB-CA.txt", encoding: .utf8)
        #expect(notice.hasPrefix("This is a lab CA.") && notice.contains("Do not use it in production"), "\(notice)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        _ = try cluster.etcdClientTLS(as: "c1")
        #expect(try mode(key) == 0o600, "the key was made owner-only again when the CA was opened")
    }
}
