import ArgumentParser
import CamsyncBench
import CamsyncProcessLab
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the performance benchmarks against real coordinator and node processes.",
        discussion: """
            Each benchmark starts its own `camsync coordinator` (and nodes or helper processes) on \
            loopback TCP, warms up, measures with HdrHistogram and prints p50/p90/p99/p99.9/max, \
            rates and RSS next to a raw ZeroMQ floor measured in the same run, then checks the \
            targets of docs/PERFORMANCE.md ("Targets").

            fleet runs thousands of real node sessions in `camsync bench fleet-shard` child processes \
            (1,000 devices and their displays each) against one coordinator; fleet-failover kills \
            the HA leader with such a fleet joined (3 coordinators on etcd).

            The ha-* benchmarks run HA coordinators (--etcd) on a 3-member loopback etcd cluster of \
            their own (Debian etcd-server; skipped with a note when etcd is not installed).

            Examples:
              camsync bench                          (everything, about 12 minutes)
              camsync bench --quick latency fanout
              camsync bench --quick ha-latency ha-failover ha-throughput
              camsync bench fleet --fleet-nodes 7000   (a leader with up to 7,000 nodes)
              camsync bench fleet-failover --fleet-nodes 7000
              camsync bench --json-file bench.json

            """,
        subcommands: [BenchRunCommand.self, BenchEchoCommand.self, BenchSubscribersCommand.self, BenchFleetShardCommand.self],
        defaultSubcommand: BenchRunCommand.self)
}

struct BenchRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run benchmarks (the default subcommand of `camsync bench`).")

    @Argument(help: ArgumentHelp("Benchmarks to run (default: all).",
        discussion: "One or more of: \(BenchmarkName.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "benchmark"))
    var benchmarks: [String] = []
    @Flag(help: "Short run: small samples and durations (about a minute).") var quick = false
    @Flag(help: "Print the report as JSON on stdout instead of the table (progress stays on stderr).") var json = false
    @Option(help: "Also write the JSON report to this file.") var jsonFile: String?
    @Option(help: "Directory for journals, logs and sockets (default: a new directory under /tmp).") var workDir: String?
    @Flag(help: "Keep the work directory afterwards (logs, journals).") var keep = false
    @Option(help: "latency: simulated nodes registered.") var nodes = 50
    @Option(help: "fanout: SUB sockets.") var subscribers = 500
    @Option(help: "fanout: processes the SUB sockets are spread over.") var subscriberProcesses = 4
    @Option(help: "recovery: journaled commands (default 100000, 20000 with --quick).") var recoveryCommands: Int?
    @Option(help: "memory: registered nodes.") var memoryNodes = 1000
    @Option(help: "memory: apps per node.") var memoryApps = 10
    @Option(help: "ha-latency: coordinators on etcd, 1–5 (1: a leader without standbys or their log watches).")
    var haCoordinators = 3
    @Option(help: "fleet: nodes of the largest fleet (devices and their displays; a coordinator holds 1 descriptor a node).")
    var fleetNodes = 10_000
    @Option(help: ArgumentHelp("fleet, fleet-failover: measure only these fleet sizes, comma-separated (default: the suite's sizes up to --fleet-nodes).",
                               valueName: "nodes,…"))
    var fleetSizes: String?
    @Option(help: ArgumentHelp("Command the coordinator runs under, e.g. \"taskset -c 1\" to pin it to one core.",
                               valueName: "command"))
    var coordinatorPrefix: String?
    @Flag(help: "No progress lines on stderr.") var silent = false

    var selected: [BenchmarkName] {
        benchmarks.isEmpty ? BenchmarkName.allCases : benchmarks.compactMap { BenchmarkName(rawValue: $0.lowercased()) }
    }

    func validate() throws {
        for name in benchmarks where BenchmarkName(rawValue: name.lowercased()) == nil {
            throw ValidationError("unknown benchmark '\(name)'; choose from \(BenchmarkName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard nodes > 0, subscribers > 0, subscriberProcesses > 0, memoryNodes > 0, memoryApps > 0 else {
            throw ValidationError("--nodes, --subscribers, --subscriber-processes, --memory-nodes and --memory-apps must be positive")
        }
        guard parsedFleetSizes.allSatisfy({ $0 >= 2 }) else { throw ValidationError("--fleet-sizes takes numbers of at least 2") }
        guard fleetNodes >= 2 else { throw ValidationError("--fleet-nodes must be at least 2 (a device and its display)") }
        guard (1...5).contains(haCoordinators) else {
            throw ValidationError("--ha-coordinators must be between 1 and 5")
        }
        if let recoveryCommands, recoveryCommands < 1000 {
            throw ValidationError("--recovery-commands must be at least 1000")
        }
    }

    var parsedFleetSizes: [Int] {
        (fleetSizes ?? "").split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) ?? 0 }
    }

    func settings(executable: String, workDirectory: String) -> BenchSettings {
        let silent = self.silent
        let start = Date()
        return BenchSettings(
            executable: executable, workDirectory: workDirectory, quick: quick,
            coordinatorPrefix: coordinatorPrefix.map { $0.split(separator: " ").map(String.init) } ?? [],
            nodes: nodes, subscribers: subscribers, subscriberProcesses: subscriberProcesses,
            recoveryCommands: recoveryCommands, memoryNodes: memoryNodes, memoryAppsPerNode: memoryApps,
            haCoordinators: haCoordinators, fleetNodes: fleetNodes, fleetSizes: parsedFleetSizes.isEmpty ? nil : parsedFleetSizes, progress: { line in
                guard !silent else { return }
                FileHandle.standardError.write(Data(String(format: "[%6.1fs] %@\n", Date().timeIntervalSince(start), line).utf8))
            })
    }

    func run() throws {
        let directory = workDir ?? "\(NSTemporaryDirectory())camsync-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A benchmark that failed keeps the run's directory (its processes' logs) for the post-mortem.
        var failed = false
        defer { if !keep && workDir == nil && !failed { try? FileManager.default.removeItem(atPath: directory) } }
        ChildProcesses.installSignalHandlers()
        let settings = settings(executable: BenchSystem.currentExecutable(), workDirectory: directory)
        let command = (["camsync"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        let report = BenchSuite.run(selected, settings: settings, command: command)
        failed = report.results.contains(where: { $0.error != nil })
        let json = try report.json()
        if let jsonFile { try (json + "\n").write(toFile: jsonFile, atomically: true, encoding: .utf8) }
        print(self.json ? json : ReportFormatter.render(report))
        if failed {
            FileHandle.standardError.write(Data("camsync bench: a benchmark failed; its processes' logs are kept in \(directory)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// The floor's other end: a ROUTER that echoes every message (a child of `camsync bench`).
struct BenchEchoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo", abstract: "Echo server for the raw round-trip floor (internal).", shouldDisplay: false)
    @Option(help: "Endpoint to bind.") var bind: String

    func run() throws { try Floor.runEcho(bind: bind) }
}

/// Fan-out receivers: many SUB sockets in one process (a child of `camsync bench`).
struct BenchSubscribersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribers", abstract: "SUB sockets for the fan-out benchmark (internal).", shouldDisplay: false)
    @Option(help: "The coordinator's PUB endpoint.") var events: String
    @Option(help: "PULL endpoint of the bench process for reports.") var report: String
    @Option(help: "Number of SUB sockets.") var count: Int
    @Option(help: "This process's number in the reports.") var id: Int

    func run() throws { try SubscriberProcess.run(events: events, report: report, count: count, id: id) }
}

/// A fleet's nodes: devices and their displays as node sessions in one process (a child of `camsync bench fleet`).
struct BenchFleetShardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-shard", abstract: "Node sessions for the fleet benchmark (internal).", shouldDisplay: false)
    @Option(help: "The coordinators' command endpoints (comma-separated).") var command: String
    @Option(help: "The coordinators' event endpoints (comma-separated).") var events: String
    @Option(help: "PULL endpoint of the bench process for reports.") var report: String
    @Option(help: "The first device's number.") var first: Int
    @Option(help: "Devices (each with its display).") var devices: Int
    @Option(help: "Heartbeat interval.") var heartbeatMs: Int64 = 500
    @Option(help: "Heartbeats missed before the coordinator counts as silent.") var liveness: Int64 = 3
    @Option(help: "This process's number in the reports.") var id: Int
    @Option(help: "The process's nice value (0: as started).") var niceness: Int32 = 0
    @Option(help: "CURVE: the coordinator's public key (none: lab mode).") var coordinatorKey: String?
    @Option(help: "CURVE: the run's salt, from which each node's key pair is derived.") var keySalt: UInt64 = 0

    func run() throws {
        try FleetShardProcess.run(command: command, events: events, report: report, first: first, devices: devices,
                                  heartbeatMilliseconds: heartbeatMs, liveness: liveness, id: id, niceness: niceness,
                                  curve: coordinatorKey.map { (coordinatorKey: $0, salt: keySalt) })
    }
}
