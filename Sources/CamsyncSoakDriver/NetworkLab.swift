import CamsyncProcessLab
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The network-namespace lab of `deploy/netns/lab.sh`: hosts `PREFIX-h1…hN` and `PREFIX-coord`
/// on a bridge, so that a fault can cut one host's link (a partition) and heal it.
public final class NetworkLab: @unchecked Sendable {
    public let script: String
    public let hosts: Int
    public let prefix: String
    /// First three octets of the lab's /24.
    public let subnet: String

    /// Each lab of this process has a number of its own: two labs of one process (the embedded and the
    /// HA soak tests run side by side) must not share namespaces or a subnet, or one's `down` takes
    /// the other's hosts away (what failed the HA lab soak in `make test` and CI).
    private static let made = Locked(0)

    public init(script: String, hosts: Int) {
        self.script = script
        self.hosts = hosts
        let pid = Int(getpid())
        let number = Self.made.withLock { made in
            made += 1
            return made
        }
        prefix = "cso\(pid % 100_000)n\(number)"
        subnet = "10.231.\(200 + (pid + number) % 50)"
    }

    /// Whether this machine can run the lab (`lab.sh check`: root, iproute2, veth).
    public static func isAvailable(script: String) -> Bool {
        getuid() == 0 && (try? run(script: script, ["check"], subnet: nil).status) == 0
    }

    public func up() throws {
        let result = try Self.run(script: script, ["up", "\(hosts)", prefix], subnet: subnet)
        guard result.status == 0 else { throw LabError(message: "lab.sh up failed: \(result.output)") }
    }

    public func down() { _ = try? Self.run(script: script, ["down", prefix], subnet: subnet) }
    public func partition(host: Int) { _ = try? Self.run(script: script, ["partition", "h\(host)", prefix], subnet: subnet) }
    public func heal(host: Int) { _ = try? Self.run(script: script, ["heal", "h\(host)", prefix], subnet: subnet) }
    public func healAll() {
        for host in 1...hosts {
            heal(host: host)
            mend(host: host)
        }
    }
    /// Drops what host `host` sends host `peer`, and unless `oneWay` what it hears from it (nftables
    /// in its namespace; `lab.sh cut`).
    public func cut(host: Int, peer: Int, oneWay: Bool = false) {
        _ = try? Self.run(script: script, ["cut", "h\(host)", "h\(peer)", prefix] + (oneWay ? ["one-way"] : []), subnet: subnet)
    }
    /// Removes every cut in host `host`'s namespace (`lab.sh mend`).
    public func mend(host: Int) { _ = try? Self.run(script: script, ["mend", "h\(host)", prefix], subnet: subnet) }
    /// Whether this machine can cut links in the lab (`lab.sh cut-check`: nftables in a namespace).
    public static func cutsAvailable(script: String) -> Bool {
        getuid() == 0 && (try? run(script: script, ["cut-check"], subnet: nil).status) == 0
    }

    @discardableResult
    static func run(script: String, _ arguments: [String], subnet: String?) throws -> CommandResult {
        try runCommand("/bin/bash", [script] + arguments, environment: subnet.map { ["LAB_SUBNET": $0] } ?? [:])
    }
}

public struct LabError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
