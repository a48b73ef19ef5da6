import Foundation
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

/// Loopback TCP ports for tests and benchmarks.
public enum LoopbackPorts {
    /// An unused loopback TCP port (bound and released by the kernel's ephemeral allocator).
    public static func free() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
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
