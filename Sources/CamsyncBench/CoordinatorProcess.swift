public import CamsyncProcessLab
public import CamsyncCoordinator
public import CamsyncEtcd
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
import CamsyncCoordinatorCore
public import CamsyncEtcdModel
#endif

/// A real `camsync coordinator` child process on loopback TCP, with its own data directory, or in
/// HA mode (`etcd` set) with its log on etcd.
public final class CoordinatorProcess {
    /// HA mode (SPEC K6): `--etcd`, `--name`, `--etcd-prefix`, `--lease-seconds` instead of a journal.
    public struct HighAvailability: Sendable {
        /// Comma-separated client URLs (`http://127.0.0.1:2379,…`).
        public var etcd: String
        public var name: String
        public var prefix: String
        public var leaseSeconds: Int64
        /// `--leader-pulse-ms`, `--suspect-leader-after-ms` (nil: the defaults).
        public var pulseMilliseconds: Int64?
        public var suspicionMilliseconds: Int64?
        /// Mutual TLS to etcd (nil: `--etcd-plaintext`).
        public var tls: EtcdClientTLS?
        public init(etcd: String, name: String, prefix: String, leaseSeconds: Int64, pulseMilliseconds: Int64? = nil,
                    suspicionMilliseconds: Int64? = nil, tls: EtcdClientTLS? = nil) {
            self.etcd = etcd
            self.name = name
            self.prefix = prefix
            self.leaseSeconds = leaseSeconds
            self.pulseMilliseconds = pulseMilliseconds
            self.suspicionMilliseconds = suspicionMilliseconds
            self.tls = tls
        }
    }

    public struct Options: Sendable {
        public var durability = "full"
        public var heartbeatMs: Int64 = 500
        public var liveness: Int64 = 3
        public var snapshotEvery: UInt64?
        /// e.g. ["taskset", "-c", "1"] to pin the coordinator to one core.
        public var prefix: [String] = []
        /// `--http HOST:PORT`: /metrics and the live web view (nil: off).
        public var http: String?
        /// HA mode: no data directory, no durability (nil: the SQLite journal).
        public var highAvailability: HighAvailability?
        /// CURVE on both sockets, with these keys (nil: lab mode).
        public var keyFiles: CoordinatorLaunch.KeyFiles?
        public init(durability: String = "full", heartbeatMs: Int64 = 500, liveness: Int64 = 3,
                    snapshotEvery: UInt64? = nil, prefix: [String] = [], http: String? = nil,
                    highAvailability: HighAvailability? = nil, keyFiles: CoordinatorLaunch.KeyFiles? = nil) {
            self.keyFiles = keyFiles
            self.durability = durability
            self.heartbeatMs = heartbeatMs
            self.liveness = liveness
            self.snapshotEvery = snapshotEvery
            self.prefix = prefix
            self.http = http
            self.highAvailability = highAvailability
        }
    }

    public let executable: String
    public let directory: String
    public let commandEndpoint: String
    public let eventEndpoint: String
    public var options: Options
    public private(set) var process: ManagedProcess?
    private var launches = 0

    public init(executable: String, directory: String, options: Options) throws {
        self.executable = executable
        self.directory = directory
        self.options = options
        commandEndpoint = BenchSystem.loopbackEndpoint()
        eventEndpoint = BenchSystem.loopbackEndpoint()
        try FileManager.default.createDirectory(atPath: options.highAvailability == nil ? directory + "/data" : directory,
                                                withIntermediateDirectories: true)
    }

    public var logPath: String { "\(directory)/\(options.highAvailability?.name ?? "coordinator")-\(launches).log" }

    /// Starts the process; does not wait (see `waitUntilServing`).
    public func launch() throws {
        launches += 1
        var arguments = try launchSettings().arguments
        var exe = executable
        if let first = options.prefix.first {
            arguments = Array(options.prefix.dropFirst()) + [executable] + arguments
            exe = first.hasPrefix("/") ? first : Self.which(first) ?? first
        }
        process = try ManagedProcess(name: "coordinator", executable: exe, arguments: arguments, logPath: logPath)
        ChildProcesses.register(pid)
    }

    /// The coordinator's command line (`CoordinatorLaunch`): these endpoints, the options, logging warnings only.
    func launchSettings() throws -> CoordinatorLaunch {
        let defaults = CoordinatorSettings.defaults
        var settings = CoordinatorSettings(
            commandEndpoint: commandEndpoint, eventEndpoint: eventEndpoint, dataDirectory: directory + "/data",
            durability: JournalDurability(rawValue: options.durability) ?? .full,
            heartbeatIntervalMilliseconds: options.heartbeatMs, liveness: options.liveness,
            snapshotEvery: options.snapshotEvery ?? defaults.snapshotEvery)
        if let ha = options.highAvailability {
            let defaults = HighAvailabilitySettings(etcd: [], name: "")
            settings.highAvailability = HighAvailabilitySettings(
                etcd: try EtcdEndpoint.list(parsing: ha.etcd), name: ha.name, prefix: ha.prefix, leaseSeconds: ha.leaseSeconds,
                pulseMilliseconds: ha.pulseMilliseconds ?? defaults.pulseMilliseconds,
                suspicionMilliseconds: ha.suspicionMilliseconds ?? defaults.suspicionMilliseconds)
            settings.highAvailability?.etcdTLS = ha.tls
        }
        return CoordinatorLaunch(settings: settings, keyFiles: options.keyFiles, http: options.http, logLevel: "warning")
    }

    /// A coordinator with its journal (`durability`) and liveness out of the way (`--heartbeat-ms
    /// 600000`: idle simulated nodes are not declared dead), launched and serving, and a setup DEALER
    /// on it (its socket's context serves the caller's other sockets). The caller stops both.
    static func launchServing(_ settings: BenchSettings, directory: String, durability: String = "full",
                              snapshotEvery: UInt64? = nil) throws -> (coordinator: CoordinatorProcess, setup: ProtocolDealer) {
        let coordinator = try CoordinatorProcess(executable: settings.executable, directory: directory,
            options: .init(durability: durability, heartbeatMs: 600_000, liveness: 3, snapshotEvery: snapshotEvery,
                           prefix: settings.coordinatorPrefix))
        try coordinator.launch()
        do {
            let setup = try ProtocolDealer(context: try ZMQContext(ioThreads: 1), endpoint: coordinator.commandEndpoint)
            do {
                try BenchWait.serving(setup, coordinator: coordinator)
            } catch {
                setup.close()
                throw error
            }
            return (coordinator, setup)
        } catch {
            coordinator.stop()
            throw error
        }
    }

    /// The pid of the coordinator (with a prefix that does not exec, such as valgrind, the prefix's process).
    public var pid: Int32 { process?.pid ?? 0 }

    public var rssMB: Double? { BenchSystem.rssMegabytes(pid: pid) }

    public func stop(signal: Int32 = 15) {
        guard let process else { return }
        defer { ChildProcesses.unregister(process.pid) }
        if signal == SIGKILL {
            process.signal(SIGKILL)
            process.wait(timeout: 10)
        }
        process.stop(grace: 30)
        self.process = nil
    }

    public func logTail() -> String { process?.logTail(10) ?? ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "") }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
