@testable import CamsyncEtcd
import Foundation
import Testing
import CamsyncEtcdModel

@Suite struct EndpointTests {
    @Test(arguments: [
        ("127.0.0.1:2379", EtcdEndpoint(host: "127.0.0.1", port: 2379)),
        ("http://10.0.0.2:23790", EtcdEndpoint(host: "10.0.0.2", port: 23790)),
        ("http://127.0.0.1:2379/", EtcdEndpoint(host: "127.0.0.1", port: 2379)),
    ])
    func parses(text: String, expected: EtcdEndpoint) throws {
        #expect(try EtcdEndpoint(parsing: text) == expected)
    }

    @Test(arguments: ["", "127.0.0.1", "127.0.0.1:", ":2379", "127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:port"])
    func refusesBadEndpoints(text: String) {
        #expect(throws: EtcdError.self) { try EtcdEndpoint(parsing: text) }
        do { _ = try EtcdEndpoint(parsing: text) } catch let error as EtcdError {
            #expect(error.code == .rejected)
            #expect(error.message.contains("bad etcd endpoint"))
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func parsesLists() throws {
        #expect(try EtcdEndpoint.list(parsing: "127.0.0.1:1,127.0.0.1:2").map(\.port) == [1, 2])
        #expect(throws: EtcdError.self) { try EtcdEndpoint.list(parsing: ",") }
    }

    @Test(arguments: [
        ("camsync/log/", [UInt8]("camsync/log0".utf8)),
        ("a", [UInt8]("b".utf8)),
        ("a\u{7f}", [0x61, 0x80]),
        ("", [0]),
    ])
    func prefixEnd(prefix: String, expected: [UInt8]) {
        #expect([UInt8](EtcdKeys.prefixEnd(prefix)) == expected)
    }

    @Test func summaryPrefersTheMostTellingError() {
        let unreachable = EtcdError(.unavailable, "x", member: "a:1")
        let noLeader = EtcdError(.noQuorum, "y", member: "b:2")
        #expect(EtcdError.summary(of: [unreachable, noLeader], what: "put").code == .noQuorum)
        #expect(EtcdError.summary(of: [unreachable, unreachable], what: "put").code == .unavailable)
        #expect(EtcdError.summary(of: [unreachable, EtcdError(.timedOut, "z")], what: "put").code == .timedOut)
    }
}
