public import CamsyncEtcd
public import CamsyncPKI
import Foundation
#if canImport(Glibc)
import Glibc
public import CamsyncEtcdModel
#endif

/// A local etcd cluster of Debian's `etcd` binary (package etcd-server, installed by `make deps`)
/// on loopback: free ports, one temporary data directory per member, logs beside them.
/// Members can be killed (SIGKILL) and restarted on the same data directory. `stop()` (and the
/// last reference going away) stops every member and removes the directory.
///
/// `open(directory:…)` is the same cluster kept in a directory that outlives the process (a
/// `camsync cluster up` run directory): each member's name, host and ports are recorded in
/// `etcd-members.json` there, its pid in `NAME.pid`, log in `NAME.log`, data in `NAME.data`; members
/// run on after this object is gone (`cluster down` stops them), and a later `open` starts only
/// the ones that are not running. Members may run in network namespaces (the netns lab).
///
/// Security (docs/OPERATIONS.md "Certificates"): by default members serve https on client and peer
/// URLs and require a client certificate from the cluster's CA on both (`--client-cert-auth`,
/// `--peer-client-cert-auth`); the CA and every certificate live in `DIRECTORY/tls`. Each member also
/// serves plain-http `/health` and `/metrics` on a port of its own (`--listen-metrics-urls`), which
/// expose no keys. `configureAuth` turns etcd's auth on with a role per camsync cluster.
public final class EtcdCluster: @unchecked Sendable {
    public struct Member: Sendable, Codable, Equatable {
        public let name: String
        public let clientPort: Int
        public let peerPort: Int
        /// The network namespace the member runs in (`ip netns exec`); nil: this machine's.
        public var host: String?
        /// The address it listens on (client and peer).
        public var address: String
        /// Plain-http `/health` and `/metrics` (nil in records of an older version: none).
        public var metricsPort: Int?
        /// https on client and peer URLs with client certificates (nil in older records: plaintext).
        public var tls: Bool?

        public init(name: String, clientPort: Int, peerPort: Int, host: String? = nil, address: String = "127.0.0.1",
                    metricsPort: Int? = nil, tls: Bool = true) {
            self.name = name
            self.clientPort = clientPort
            self.peerPort = peerPort
            self.host = host
            self.address = address
            self.metricsPort = metricsPort
            self.tls = tls
        }

        public var endpoint: EtcdEndpoint { EtcdEndpoint(host: address, port: clientPort) }
        var scheme: String { tls == true ? "https" : "http" }
        /// The client URL, as `camsync coordinator --etcd` takes it.
        public var clientURL: String { "\(scheme)://\(address):\(clientPort)" }
        var peerURL: String { "\(scheme)://\(address):\(peerPort)" }
    }

    /// How members talk to clients and to each other.
    public enum Security: Sendable, Equatable {
        /// https everywhere, client certificates from the cluster's CA required (the default).
        case mutualTLS
        /// Plain http, no authentication: a lab only (`etcd.plaintext: true`; the coordinators warn).
        case plaintext
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
    /// The cluster's CA and certificates (`DIRECTORY/tls`); nil when the members run in plaintext.
    public let certificates: EtcdCertificates?
    private let executable: String
    private let lock = NSLock()
    private var processes: [ManagedProcess?]
    /// A temporary cluster (`start`): `stop()` removes the directory, and the last reference going
    /// away stops the members. False for `open(directory:…)`.
    private let temporary: Bool
    /// Whether the last reference going away stops the members (default: only temporary clusters).
    public var stopsMembersOnDeinit: Bool

    /// Where `etcd` is, or nil when it is not installed.
    public static var executablePath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/etcd" } + ["/usr/bin/etcd", "/usr/local/bin/etcd"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Where test clusters keep their data: /dev/shm (tmpfs) when there is one, else the temporary
    /// directory. etcd fsyncs every raft entry; on a shared 2-core disk several test clusters at once
    /// made it time out, and on tmpfs an fsync costs nothing. kill -9 keeps the page cache, so what
    /// the tests check (members killed and restarted) is unchanged; `cluster up` keeps its data in
    /// the run directory, on disk.
    public static var scratchParent: String {
        var shm = ObjCBool(false)
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &shm), shm.boolValue,
           FileManager.default.isWritableFile(atPath: "/dev/shm") { return "/dev/shm" }
        return FileManager.default.temporaryDirectory.path
    }

    /// Whether tests can start a cluster here; the message to skip with when not.
    public static var isAvailable: Bool { executablePath != nil }
    public static let unavailableMessage = "etcd is not installed (Debian etcd-server; `make deps` installs it): etcd tests skipped"

    /// Every member's client endpoint.
    public var endpoints: [EtcdEndpoint] { members.map(\.endpoint) }

    /// Starts `size` members and waits until every one of them serves linearizable reads.
    /// `timeout`: generous, because a test run starts many suites at once on 2 cores.
    /// `parent`: where the data directory goes (tmpfs for tests; the benchmarks pass a disk directory,
    /// so that etcd's fsyncs cost what they cost).
    public static func start(size: Int = 3, timing: Timing = Timing(), security: Security = .mutualTLS,
                             timeout: Duration = .seconds(90), parent: String = scratchParent) async throws -> EtcdCluster {
        // A free port can be taken by another process between `LoopbackPorts.free()` and etcd's bind
        // (tests and benchmarks start clusters concurrently): such a cluster is started again on new ports.
        var attempts = 0
        while true {
            attempts += 1
            let cluster = try EtcdCluster(size: size, timing: timing, security: security, parent: parent)
            do {
                try await cluster.waitUntilHealthy(timeout: timeout)
                return cluster
            } catch {
                let portTaken = cluster.members.indices.contains { cluster.logTail($0, lines: 50).contains("address already in use") }
                cluster.stop()
                guard portTaken, attempts < 3 else { throw error }
            }
        }
    }

    private init(size: Int, timing: Timing, security: Security, parent: String) throws {
        guard let executable = Self.executablePath else { throw EtcdError(.unavailable, Self.unavailableMessage) }
        var template = Array("\(parent)/camsync-etcd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw EtcdError(.unavailable, "cannot create a temporary directory") }
        self.directory = String(cString: made)
        self.executable = executable
        self.timing = timing
        self.members = (0..<size).map { index in
            Member(name: "etcd-\(index)", clientPort: LoopbackPorts.free(), peerPort: LoopbackPorts.free(),
                   metricsPort: LoopbackPorts.free(), tls: security == .mutualTLS)
        }
        self.certificates = try Self.certificates(directory: directory, members: members)
        self.processes = Array(repeating: nil, count: size)
        temporary = true
        stopsMembersOnDeinit = true
        for index in 0..<size { try start(index) }
    }

    private init(directory: String, members: [Member], timing: Timing, executable: String) throws {
        self.directory = directory
        self.members = members
        self.timing = timing
        self.executable = executable
        self.certificates = try Self.certificates(directory: directory, members: members)
        processes = Array(repeating: nil, count: members.count)
        temporary = false
        stopsMembersOnDeinit = false
    }

    /// Where a member runs: a network namespace and the address it listens on there.
    public struct Placement: Sendable, Equatable {
        public var host: String
        public var address: String
        public init(host: String, address: String) {
            self.host = host
            self.address = address
        }
    }

    /// The cluster kept in `directory` (created if missing): `size` members named etcd-0…, on
    /// loopback with free ports, or at `placements` (one per member; ports 2379 and 2380 there).
    /// The first call records the members in `directory/etcd-members.json`; later calls reuse them
    /// and start only the members whose pid file names no live process. Does not wait for health
    /// (`waitUntilServing`). Members outlive this object unless `stopsMembersOnDeinit` is set.
    public static func open(directory: String, size: Int, placements: [Placement]? = nil,
                            timing: Timing = Timing(), security: Security = .mutualTLS) throws -> EtcdCluster {
        guard let executable = Self.executablePath else { throw EtcdError(.unavailable, Self.unavailableMessage) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let record = "\(directory)/etcd-members.json"
        let members: [Member]
        if let data = FileManager.default.contents(atPath: record) {
            let stored = try JSONDecoder().decode([Member].self, from: data)
            let matches = stored.count == size && stored.indices.allSatisfy { index in
                stored[index].host == placements?[index].host && (placements.map { $0[index].address == stored[index].address } ?? true)
                    && (stored[index].tls == true) == (security == .mutualTLS)
            }
            guard matches else {
                throw EtcdError(.rejected, "\(record) records other etcd members than asked for (a changed topology?): "
                                + "stop the cluster and remove \(directory)/etcd-* to start afresh")
            }
            members = stored
        } else {
            members = (0..<size).map { index in
                let tls = security == .mutualTLS
                if let placement = placements?[index] {
                    return Member(name: "etcd-\(index)", clientPort: 2379, peerPort: 2380, host: placement.host, address: placement.address,
                                  metricsPort: 2381, tls: tls)
                }
                return Member(name: "etcd-\(index)", clientPort: LoopbackPorts.free(), peerPort: LoopbackPorts.free(),
                              metricsPort: LoopbackPorts.free(), tls: tls)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(members).write(to: URL(fileURLWithPath: record), options: .atomic)
        }
        let cluster = try EtcdCluster(directory: directory, members: members, timing: timing, executable: executable)
        for index in members.indices where !cluster.isRunning(index) { try cluster.start(index) }
        return cluster
    }

    /// The CA and each member's certificate in `directory/tls` (made when missing); nil in plaintext.
    private static func certificates(directory: String, members: [Member]) throws -> EtcdCertificates? {
        guard members.contains(where: { $0.tls == true }) else { return nil }
        let certificates = try EtcdCertificates.openLab(directory: "\(directory)/tls", clusterName: URL(fileURLWithPath: directory).lastPathComponent)
        for member in members { try certificates.member(member.name, hosts: [member.address]) }
        return certificates
    }

    /// Client settings for `identity`: with TLS, its client certificate (issued by the cluster's CA
    /// when missing; the common name is `identity`, the etcd user). `root` is the administrator.
    public func clientSettings(as identity: String = "root", requestTimeout: Duration = .seconds(2)) throws -> EtcdClient.Settings {
        var settings = EtcdClient.Settings(requestTimeout: requestTimeout)
        if let certificates {
            let files = try certificates.client(identity)
            settings.tls = EtcdClientTLS(trustedCA: certificates.trustedCA, certificate: files.certificate, privateKey: files.privateKey)
        }
        return settings
    }

    /// Runs `body` with a client of every member, as `identity` (see `clientSettings`).
    public func withClient<R: Sendable>(as identity: String = "root", requestTimeout: Duration = .seconds(2),
                                        _ body: (EtcdClient) async throws -> R) async throws -> R {
        try await EtcdClient.with(endpoints: endpoints, settings: clientSettings(as: identity, requestTimeout: requestTimeout), body)
    }

    /// etcd auth for camsync clusters (`EtcdClient.secure`: a role per prefix, its users, auth on),
    /// as root. Idempotent. Needs TLS (users are certificate common names).
    public func configureAuth(_ grants: [EtcdAccessGrant]) async throws {
        guard certificates != nil else { throw EtcdError(.rejected, "etcd auth needs the members on TLS (users are certificate names)") }
        try await withClient(requestTimeout: .seconds(10)) { try await $0.secure(grants) }
    }

    private func arguments(_ member: Member) -> [String] {
        let cluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
        var security: [String] = []
        if let certificates, member.tls == true {
            let files = certificates.files(member.name)
            security = ["--cert-file", files.certificate, "--key-file", files.privateKey, "--client-cert-auth",
                        "--trusted-ca-file", certificates.trustedCA,
                        "--peer-cert-file", files.certificate, "--peer-key-file", files.privateKey, "--peer-client-cert-auth",
                        "--peer-trusted-ca-file", certificates.trustedCA]
        }
        if let port = member.metricsPort { security += ["--listen-metrics-urls", "http://\(member.address):\(port)"] }
        return security + [
            "--name", member.name,
            "--data-dir", "\(directory)/\(member.name).data",
            "--listen-client-urls", member.clientURL,
            "--advertise-client-urls", member.clientURL,
            "--listen-peer-urls", member.peerURL,
            "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", cluster,
            "--initial-cluster-state", "new",
            "--initial-cluster-token", "camsync-\(URL(fileURLWithPath: directory).lastPathComponent)",
            "--heartbeat-interval", String(timing.heartbeatMilliseconds),
            "--election-timeout", String(timing.electionTimeoutMilliseconds),
            // A member cut off from the others asks to be elected (raft's pre-vote) before it raises
            // its term: otherwise its term, raised by each lonely election, deposes the raft leader
            // when the cut heals and the cluster has no quorum for seconds (etcd 3.4's default is off).
            "--pre-vote",
        ]
    }

    /// Starts member `index` (again): on its existing data directory it rejoins the cluster.
    public func start(_ index: Int) throws {
        let member = members[index]
        let (executable, arguments) = NetworkNamespace.command(in: member.host, executable: self.executable, arguments: arguments(member))
        let process = try ManagedProcess(name: member.name, executable: executable, arguments: arguments,
                                         logPath: "\(directory)/\(member.name).log")
        process.killsOnDeinit = temporary
        try? "\(process.pid)\n".write(toFile: pidPath(index), atomically: true, encoding: .utf8)
        lock.withLock { processes[index] = process }
    }

    private func pidPath(_ index: Int) -> String { "\(directory)/\(members[index].name).pid" }

    /// The pid of member `index` as its pid file records it (a member an earlier process started).
    private func recordedPid(_ index: Int) -> Int32? {
        guard let text = try? String(contentsOfFile: pidPath(index), encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), RunDirectory.isAlive(pid) else { return nil }
        return pid
    }

    /// SIGKILL member `index` and reap it (a crash: no clean shutdown).
    public func kill(_ index: Int) {
        let process = lock.withLock { () -> ManagedProcess? in
            defer { processes[index] = nil }
            return processes[index]
        }
        if let process {
            process.signal(SIGKILL)
            process.stop(grace: 0)
        } else if let pid = recordedPid(index) {
            Glibc.kill(pid, SIGKILL)
        }
    }

    /// SIGSTOP member `index` (a member that takes connections and answers nothing, as one cut off
    /// does), or SIGCONT it again.
    public func pause(_ index: Int, _ paused: Bool = true) {
        guard let process = lock.withLock({ processes[index] }) else { return }
        process.signal(paused ? SIGSTOP : SIGCONT)
    }

    /// Whether member `index` is running (started here, or by an earlier process per its pid file).
    public func isRunning(_ index: Int) -> Bool {
        if let process = lock.withLock({ processes[index] }) { return process.isRunning }
        return !temporary && recordedPid(index) != nil
    }

    /// The pid of member `index`, when running.
    public func pid(_ index: Int) -> Int32? {
        if let process = lock.withLock({ processes[index] }) { return process.isRunning ? process.pid : nil }
        return temporary ? nil : recordedPid(index)
    }

    /// The tail of member `index`'s log (for failure messages).
    public func logTail(_ index: Int, lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: "\(directory)/\(members[index].name).log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Waits until every running member answers a linearizable read (so it has a leader and
    /// the quorum agrees), or throws after `timeout` with the members' log tails and the last error.
    /// One client per member for all the attempts: a fresh one each time started each read with a
    /// new connection (a TLS handshake within the read's deadline), which a loaded machine never
    /// finished in time (three clusters started at once in a full `make test` all gave up after 90 s).
    public func waitUntilHealthy(timeout: Duration = .seconds(90)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let settings = try clientSettings(requestTimeout: .seconds(2))
        for index in members.indices where isRunning(index) {
            let failure: String? = try await EtcdClient.with(endpoints: [members[index].endpoint], settings: settings) { client in
                while true {
                    do {
                        _ = try await client.currentRevision()
                        return nil
                    } catch {
                        guard clock.now < deadline, isRunning(index) else { return "\(error)" }
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            if let failure {
                let logs = members.indices.map { "--- \(members[$0].name)\n\(logTail($0))" }.joined(separator: "\n")
                throw EtcdError(.unavailable, "etcd member \(members[index].name) not healthy within \(timeout) (last: \(failure))\n\(logs)")
            }
        }
    }

    /// Stops every member (SIGTERM, SIGKILL after a short grace), reaps them, removes the directory.
    /// (A cluster kept in a directory: stops every member, also ones an earlier process started,
    /// and keeps the directory.)
    public func stop() {
        let running = lock.withLock { () -> [ManagedProcess] in
            defer { processes = processes.map { _ in nil } }
            return processes.compactMap { $0 }
        }
        let recorded = temporary ? [] : members.indices.compactMap { recordedPid($0) }.filter { pid in !running.contains { $0.pid == pid } }
        for process in running { process.signal(SIGTERM) }
        for pid in recorded { Glibc.kill(pid, SIGTERM) }
        for process in running { process.stop(grace: 2) }
        let deadline = Date().addingTimeInterval(2)
        while recorded.contains(where: RunDirectory.isAlive) && Date() < deadline { usleep(20_000) }
        for pid in recorded where RunDirectory.isAlive(pid) { Glibc.kill(pid, SIGKILL) }
        if temporary {
            if FileManager.default.fileExists(atPath: directory) { try? FileManager.default.removeItem(atPath: directory) }
        } else {
            for index in members.indices { try? FileManager.default.removeItem(atPath: pidPath(index)) }
        }
    }

    /// Waits (blocking, no async) until every running member reports itself healthy on etcd's
    /// `/health` (it has a raft leader), probing from inside its network namespace when it has one.
    /// Throws after `timeout` seconds with the members' log tails.
    public func waitUntilServing(timeout: Double = 90) throws {
        let deadline = Date().addingTimeInterval(timeout)
        for index in members.indices where isRunning(index) {
            let member = members[index]
            // An HTTP/1.0 GET over bash's /dev/tcp: nothing to install, and it works inside a namespace.
            let script = #"exec 3<>"/dev/tcp/$1/$2" && printf 'GET /health HTTP/1.0\r\n\r\n' >&3 && cat <&3"#
            let (executable, arguments) = NetworkNamespace.command(
                in: member.host, executable: "/bin/bash",
                arguments: ["-c", script, "probe", member.address, "\(member.metricsPort ?? member.clientPort)"])
            while true {
                if let result = try? runCommand(executable, arguments, includeStandardError: false, timeout: 3),
                   result.output.contains(#""health":"true""#) { break }
                guard Date() < deadline, isRunning(index) else {
                    let logs = members.indices.map { "--- \(members[$0].name)\n\(logTail($0))" }.joined(separator: "\n")
                    throw EtcdError(.unavailable, "etcd member \(member.name) not healthy within \(timeout) s\n\(logs)")
                }
                usleep(200_000)
            }
        }
    }

    deinit { if stopsMembersOnDeinit { stop() } }
}
