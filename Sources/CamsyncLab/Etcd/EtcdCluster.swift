public import CamsyncEtcd
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local etcd cluster of Debian's `etcd` binary (package etcd-server, installed by `make deps`)
/// on loopback: free ports, one temporary data directory per member, logs beside them.
/// Members can be killed (SIGKILL) and restarted on the same data directory. `stop()` (and the
/// last reference going away) stops every member and removes the directory.
public final class EtcdCluster: @unchecked Sendable {
    public struct Member: Sendable {
        public let name: String
        public let clientPort: Int
        public let peerPort: Int
        public var endpoint: EtcdEndpoint { EtcdEndpoint(host: "127.0.0.1", port: clientPort) }
        var peerURL: String { "http://127.0.0.1:\(peerPort)" }
    }

    /// The raft timing the members run with: etcd's defaults (heartbeat 100 ms, election timeout
    /// 1 s), for headroom on a loaded 2-core machine (50 / 500 ms also passed the tests at load
    /// about 8, and fails over twice as fast). etcd's minimum lease TTL is 1.5 × the election timeout, rounded up to whole
    /// seconds (2 s with the defaults).
    public struct Timing: Sendable {
        public var heartbeatMilliseconds: Int
        public var electionTimeoutMilliseconds: Int

        public init(heartbeatMilliseconds: Int = 100, electionTimeoutMilliseconds: Int = 1000) {
            self.heartbeatMilliseconds = heartbeatMilliseconds
            self.electionTimeoutMilliseconds = electionTimeoutMilliseconds
        }
    }

    public let directory: String
    public let members: [Member]
    public let timing: Timing
    private let executable: String
    private let lock = NSLock()
    private var processes: [ManagedProcess?]

    /// Where `etcd` is, or nil when it is not installed.
    public static var executablePath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/etcd" } + ["/usr/bin/etcd", "/usr/local/bin/etcd"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether tests can start a cluster here; the message to skip with when not.
    public static var isAvailable: Bool { executablePath != nil }
    public static let unavailableMessage = "etcd is not installed (Debian etcd-server; `make deps` installs it): etcd tests skipped"

    /// Every member's client endpoint.
    public var endpoints: [EtcdEndpoint] { members.map(\.endpoint) }

    /// Starts `size` members and waits until every one of them serves linearizable reads.
    public static func start(size: Int = 3, timing: Timing = Timing(), timeout: Duration = .seconds(30)) async throws -> EtcdCluster {
        let cluster = try EtcdCluster(size: size, timing: timing)
        do {
            try await cluster.waitUntilHealthy(timeout: timeout)
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    private init(size: Int, timing: Timing) throws {
        guard let executable = Self.executablePath else { throw EtcdError(.unavailable, Self.unavailableMessage) }
        var template = Array("\(FileManager.default.temporaryDirectory.path)/camsync-etcd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw EtcdError(.unavailable, "cannot create a temporary directory") }
        self.directory = String(cString: made)
        self.executable = executable
        self.timing = timing
        self.members = (0..<size).map { index in
            Member(name: "etcd-\(index)", clientPort: LoopbackPorts.free(), peerPort: LoopbackPorts.free())
        }
        self.processes = Array(repeating: nil, count: size)
        for index in 0..<size { try start(index) }
    }

    private func arguments(_ member: Member) -> [String] {
        let cluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
        return [
            "--name", member.name,
            "--data-dir", "\(directory)/\(member.name).data",
            "--listen-client-urls", "http://127.0.0.1:\(member.clientPort)",
            "--advertise-client-urls", "http://127.0.0.1:\(member.clientPort)",
            "--listen-peer-urls", member.peerURL,
            "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", cluster,
            "--initial-cluster-state", "new",
            "--initial-cluster-token", "camsync-\(URL(fileURLWithPath: directory).lastPathComponent)",
            "--heartbeat-interval", String(timing.heartbeatMilliseconds),
            "--election-timeout", String(timing.electionTimeoutMilliseconds),
        ]
    }

    /// Starts member `index` (again): on its existing data directory it rejoins the cluster.
    public func start(_ index: Int) throws {
        let member = members[index]
        let process = try ManagedProcess(name: member.name, executable: executable, arguments: arguments(member),
                                         logPath: "\(directory)/\(member.name).log")
        lock.withLock { processes[index] = process }
    }

    /// SIGKILL member `index` and reap it (a crash: no clean shutdown).
    public func kill(_ index: Int) {
        let process = lock.withLock { () -> ManagedProcess? in
            defer { processes[index] = nil }
            return processes[index]
        }
        process?.signal(SIGKILL)
        process?.stop(grace: 0)
    }

    /// Whether member `index` is running.
    public func isRunning(_ index: Int) -> Bool { lock.withLock { processes[index]?.isRunning ?? false } }

    /// The pid of member `index`, when running.
    public func pid(_ index: Int) -> Int32? { lock.withLock { processes[index].map(\.pid) } }

    /// The tail of member `index`'s log (for failure messages).
    public func logTail(_ index: Int, lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: "\(directory)/\(members[index].name).log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Waits until every running member answers a linearizable read (so it has a leader and
    /// the quorum agrees), or throws after `timeout` with the members' log tails.
    public func waitUntilHealthy(timeout: Duration = .seconds(30)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let settings = EtcdClient.Settings(requestTimeout: .milliseconds(500))
        for index in members.indices where isRunning(index) {
            while true {
                let healthy = (try? await EtcdClient.with(endpoints: [members[index].endpoint], settings: settings) {
                    try await $0.currentRevision()
                }) != nil
                if healthy { break }
                guard clock.now < deadline, isRunning(index) else {
                    let logs = members.indices.map { "--- \(members[$0].name)\n\(logTail($0))" }.joined(separator: "\n")
                    throw EtcdError(.unavailable, "etcd member \(members[index].name) not healthy within \(timeout)\n\(logs)")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Stops every member (SIGTERM, SIGKILL after a short grace), reaps them, removes the directory.
    public func stop() {
        let running = lock.withLock { () -> [ManagedProcess] in
            defer { processes = processes.map { _ in nil } }
            return processes.compactMap { $0 }
        }
        for process in running { process.signal(SIGTERM) }
        for process in running { process.stop(grace: 2) }
        if FileManager.default.fileExists(atPath: directory) {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    deinit { stop() }
}
