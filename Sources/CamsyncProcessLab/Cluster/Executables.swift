import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Where the `camsync` binary is: the CLI starts children from its own binary, and test bundles
/// find the one built beside them.
public enum CamsyncExecutable {
    /// The binary of the running process.
    public static var current: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The C display agent (`camsync-display-agent`) for a cluster run by `camsync`: `$CAMSYNC_DISPLAY_AGENT`
    /// when set, else the one SwiftPM builds beside `camsync`.
    public static func displayAgent(besides camsync: String) -> String {
        if let path = ProcessInfo.processInfo.environment["CAMSYNC_DISPLAY_AGENT"], !path.isEmpty { return path }
        return URL(fileURLWithPath: camsync).deletingLastPathComponent().appendingPathComponent("camsync-display-agent").path
    }

    /// `camsync` in the running process's directory (where SwiftPM puts it beside the test bundle).
    public static func besideThisProcess() throws -> String {
        let candidate = URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent("camsync").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw ClusterWaitError(message: "camsync binary not found at \(candidate): run `swift build` first")
        }
        return candidate
    }
}

/// Loopback TCP ports for tests, benchmarks and the demo's clusters.
///
/// A port is chosen at random from 10000–19999, below Linux's ephemeral range (32768–60999 by
/// default) from which the kernel takes the local port of every outgoing connection and of every
/// bind to port 0; it is handed out at most once per process; and it is bindable on 127.0.0.1 when
/// handed out. Ports used to come from the kernel's ephemeral allocator (bind to port 0, read it,
/// close): the next such bind could return the same port, so two endpoints of one test could get
/// one port, and an outgoing connection could take a port before its server bound it (the flake
/// hunt saw a coordinator die of `Address already in use`: its web port was another coordinator's
/// event port). Two processes that choose ports this way at the same moment can still meet on one,
/// with the odds of a random draw from 10,000.
public enum LoopbackPorts {
    static let range = 10_000...19_999
    private static let handedOut = Locked<Set<Int>>([])

    public static func free() -> Int {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<range.count {
            let port = Int.random(in: range, using: &random)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if bindable(port) { return port }
        }
        preconditionFailure("no free loopback port left in \(range) for this process")
    }

    /// Whether a listening socket could bind `port` on 127.0.0.1 now.
    static func bindable(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0
    }
}

/// Processes placed in a network namespace (the lab's hosts, deploy/netns): `ip netns exec HOST`.
public enum NetworkNamespace {
    /// The executable and arguments that run `executable arguments` in namespace `host` (as is
    /// when `host` is nil or empty). `ip netns exec` execs the command: the pid is the command's.
    public static func command(in host: String?, executable: String, arguments: [String]) -> (String, [String]) {
        guard let host, !host.isEmpty else { return (executable, arguments) }
        let ip = FileManager.default.fileExists(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip"
        return (ip, ["netns", "exec", host, executable] + arguments)
    }
}
