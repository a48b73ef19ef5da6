public import CamsyncClient
import CamsyncConfig
import CamsyncPolicy
public import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Runs a topology's processes on this machine: one `camsync coordinator` and one `camsync node`
/// per node, each with its own log and pid file under the run directory. Used by `cluster up`,
/// `demo`, `ctl scenario run --local`, the benchmarks, the soak and the integration tests.
public final class LocalCluster: @unchecked Sendable {
    public let topology: Topology
    public let runDirectory: String
    public let executable: String
    public let keys: ClusterKeys?
    public private(set) var coordinator: ManagedProcess?
    public private(set) var nodes: [String: ManagedProcess] = [:]
    /// Extra arguments for the coordinator (benchmarks: `--durability off`, …).
    public var coordinatorArguments: [String] = []
    /// Extra arguments for one node's `camsync node` (tests: `--http`, …).
    public var nodeArguments: [String: [String]] = [:]
    /// When true, nodes append their history (fence decisions, app events) to `historyPath(node)`.
    public var recordsNodeHistory = false
    /// When false, processes outlive this object (`camsync cluster up` leaves the cluster running).
    public var stopsProcessesOnDeinit = true
    /// The C display agent started for nodes with `agent: c` (default: beside `executable`, or
    /// `$CAMSYNC_DISPLAY_AGENT`); tests point it at the sanitizer build.
    public var displayAgentExecutable: String

    private let context: ZMQContext

    /// `executable`: the camsync binary. Keys are generated when the topology asks for CURVE.
    public init(topology: Topology, runDirectory: String, executable: String) throws {
        try topology.validate()
        self.topology = topology
        self.runDirectory = runDirectory
        self.executable = executable
        displayAgentExecutable = CamsyncExecutable.displayAgent(besides: executable)
        context = try ZMQContext(ioThreads: 1)
        try FileManager.default.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
        keys = topology.security?.curve == true
            ? try ClusterKeys.loadOrGenerate(directory: runDirectory + "/keys", nodes: topology.nodes.map(\.id)) : nil
        for node in topology.nodes {
            try topology.nodeConfigYAML(node).write(toFile: configPath(node.id), atomically: true, encoding: .utf8)
        }
    }

    // MARK: Paths and endpoints

    public func configPath(_ node: String) -> String { "\(runDirectory)/\(node).yaml" }
    public func logPath(_ name: String) -> String { "\(runDirectory)/\(name).log" }
    public func pidPath(_ name: String) -> String { "\(runDirectory)/\(name).pid" }
    public func historyPath(_ node: String) -> String { "\(runDirectory)/\(node).history.jsonl" }
    public var dataDirectory: String {
        let dir = topology.coordinator.dataDir ?? "data"
        return dir.hasPrefix("/") ? dir : "\(runDirectory)/\(dir)"
    }
    /// Where nodes reach the coordinator.
    public var commandEndpoint: String { topology.coordinator.commands }
    public var eventEndpoint: String { topology.coordinator.events }
    /// Where clients on this machine reach it (the local endpoints when the topology has them).
    public var localCommandEndpoint: String { topology.coordinator.localCommands ?? commandEndpoint }
    public var localEventEndpoint: String { topology.coordinator.localEvents ?? eventEndpoint }

    public func controlEndpoint(_ node: String) -> String {
        topology.nodes.first { $0.id == node }?.control ?? "ipc://\(runDirectory)/\(node).sock"
    }

    /// CURVE settings for an admin client (nil without CURVE).
    public var adminCurve: ClientCurve? {
        keys.map { ClientCurve(publicKey: $0.admin.publicKey, secretKey: $0.admin.secretKey, serverPublicKey: $0.coordinator.publicKey) }
    }

    // MARK: Processes

    private func launch(_ name: String, host: String?, arguments: [String], executable: String? = nil) throws -> ManagedProcess {
        var executable = executable ?? self.executable
        var arguments = arguments
        if let host, !host.isEmpty {
            arguments = ["netns", "exec", host, executable] + arguments
            executable = "/usr/sbin/ip"
            if !FileManager.default.fileExists(atPath: executable) { executable = "/sbin/ip" }
        }
        let process = try ManagedProcess(name: name, executable: executable, arguments: arguments, logPath: logPath(name))
        process.killsOnDeinit = stopsProcessesOnDeinit
        try "\(process.pid)\n".write(toFile: pidPath(name), atomically: true, encoding: .utf8)
        return process
    }

    public func startCoordinator() throws {
        let c = topology.coordinator, s = topology.settings
        var arguments = [
            "coordinator", "--data-dir", dataDirectory,
            "--commands", ([c.bindCommands ?? c.commands] + [c.localCommands].compactMap { $0 }).joined(separator: ","),
            "--events", ([c.bindEvents ?? c.events] + [c.localEvents].compactMap { $0 }).joined(separator: ","),
            "--durability", c.durability ?? "full",
            "--heartbeat-ms", "\(s?.heartbeatMs ?? 500)", "--liveness", "\(s?.liveness ?? 3)",
        ]
        if let v = s?.stageWindowLimit { arguments += ["--stage-window-limit", "\(v)"] }
        if let v = s?.backgroundMediaLimitMb { arguments += ["--background-media-limit-mb", "\(v)"] }
        if let v = s?.pipRestoreDeadlineMs { arguments += ["--pip-restore-deadline-ms", "\(v)"] }
        if let v = s?.snapshotEvery { arguments += ["--snapshot-every", "\(v)"] }
        if let keys {
            arguments += ["--secret-key", keys.path("coordinator.key"), "--node-keys", keys.path("nodes.txt"),
                          "--admin-keys", keys.path("admin.pub")]
        }
        coordinator = try launch("coordinator", host: c.host, arguments: arguments + coordinatorArguments)
    }

    public func startNode(_ id: String) throws {
        guard let node = topology.nodes.first(where: { $0.id == id }) else {
            throw TopologyError(message: "no node '\(id)' in topology '\(topology.name)'")
        }
        let s = topology.settings
        let isAgent = node.config.agent == "c"
        var arguments = [
            "--config", configPath(id), "--coordinator", commandEndpoint, "--events", eventEndpoint,
            "--control", controlEndpoint(id), "--heartbeat-ms", "\(s?.heartbeatMs ?? 500)", "--liveness", "\(s?.liveness ?? 3)",
        ]
        if let keys {
            arguments += ["--secret-key", keys.path("\(id).key"), "--coordinator-key", keys.path("coordinator.pub")]
        }
        if isAgent {
            // The C display agent takes the same options as `camsync node` but keeps no history file.
            nodes[id] = try launch(id, host: node.host, arguments: arguments, executable: displayAgentExecutable)
            return
        }
        if recordsNodeHistory { arguments += ["--history", historyPath(id)] }
        nodes[id] = try launch(id, host: node.host, arguments: ["node"] + arguments + (nodeArguments[id] ?? []))
    }

    /// The run directory's record of processes (including ones an earlier `cluster up` started).
    public var runRecord: RunDirectory { RunDirectory(path: runDirectory) }

    /// Starts whatever of the topology is not already running (per the pid files), then waits
    /// until every node has joined. Safe to repeat on a running cluster. Returns what it started.
    @discardableResult
    public func startMissing(timeout: Double = 30, progress: ((String) -> Void)? = nil) throws -> [String] {
        var started: [String] = []
        if runRecord.entry("coordinator")?.alive != true {
            try startCoordinator()
            started.append("coordinator")
        }
        for node in topology.nodes where runRecord.entry(node.id)?.alive != true {
            try startNode(node.id)
            started.append(node.id)
        }
        try waitUntilJoined(timeout: timeout, progress: progress)
        return started
    }

    /// Starts everything and waits until every node has joined and synced.
    public func start(timeout: Double = 30, progress: ((String) -> Void)? = nil) throws {
        try startCoordinator()
        for node in topology.nodes { try startNode(node.id) }
        try waitUntilJoined(timeout: timeout, progress: progress)
    }

    /// Sends `signal` to a node (SIGKILL for a crash, SIGSTOP/SIGCONT for a pause).
    public func signalNode(_ id: String, _ signal: Int32) {
        nodes[id]?.signal(signal)
        if signal == SIGKILL { _ = nodes[id]?.wait(timeout: 5) }
    }

    public func signalCoordinator(_ signal: Int32) {
        coordinator?.signal(signal)
        if signal == SIGKILL { _ = coordinator?.wait(timeout: 5) }
    }

    /// Stops every process: nodes first, then the coordinator (SIGTERM, SIGKILL after `grace`).
    public func stop(grace: Double = 5) {
        for (_, process) in nodes.sorted(by: { $0.key < $1.key }) {
            process.signal(SIGCONT)
            process.signal(SIGTERM)
        }
        for (_, process) in nodes { process.stop(grace: grace) }
        coordinator?.signal(SIGCONT)
        coordinator?.stop(grace: grace)
        for name in Array(nodes.keys) + ["coordinator"] { try? FileManager.default.removeItem(atPath: pidPath(name)) }
    }

    deinit { if stopsProcessesOnDeinit { stop(grace: 2) } }

    // MARK: Clients and waiting

    public func coordinatorClient() throws -> CoordinatorClient {
        try CoordinatorClient(context: context, endpoint: localCommandEndpoint, sender: "admin", curve: adminCurve)
    }

    public func controlClient(_ node: String) throws -> ControlClient {
        try ControlClient(context: context, endpoint: controlEndpoint(node), node: node)
    }

    public func eventSubscriber(topics: [String] = ["ev.", "hb"]) throws -> EventSubscriber {
        try EventSubscriber(context: context, endpoint: localEventEndpoint, topics: topics, curve: adminCurve)
    }

    /// Waits until the coordinator lists every topology node alive and every running node
    /// reports a synced replica at the coordinator's sequence.
    public func waitUntilJoined(timeout: Double, progress: ((String) -> Void)? = nil) throws {
        let record = runRecord
        let expected = Set(topology.nodes.map(\.id)).filter { nodes[$0]?.isRunning ?? (record.entry($0)?.alive ?? false) }
        try waitUntil(timeout: timeout, what: "all nodes to join") { [self] in
            let client = try coordinatorClient()
            defer { client.close() }
            let snapshot = try client.snapshot(timeoutMilliseconds: 1000)
            let alive = Set(snapshot.state.nodes.values.filter(\.alive).map(\.id.rawValue))
            let joined = expected.intersection(alive)
            var synced = 0
            for id in joined.sorted() {
                let control = try controlClient(id)
                defer { control.close() }
                if let status = try? control.status(timeoutMilliseconds: 1000), status.synced, status.registered {
                    synced += 1
                }
            }
            progress?("\(joined.count)/\(expected.count) nodes registered, \(synced) synced")
            return joined == expected && synced == expected.count
        }
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes (then throws, naming `what`).
    public func waitUntil(timeout: Double, what: String, _ condition: () throws -> Bool) throws {
        try CamsyncLab.waitUntil(timeout: timeout, what: what, condition)
    }

    /// The coordinator's current snapshot (state, sequence, term, liveness).
    public func coordinatorState() throws -> CoordinatorClient.Snapshot {
        let client = try coordinatorClient()
        defer { client.close() }
        return try client.snapshot()
    }

    /// One node's view: replica, app-facing events and fence records after `sequence`.
    public func status(_ node: String, after sequence: UInt64 = 0) throws -> Camsync_V1_NodeStatus {
        let control = try controlClient(node)
        defer { control.close() }
        return try control.status(afterSequence: sequence)
    }

    /// The coordinator's state and every running node's replica, for agreement checks.
    public func replicas() throws -> (coordinator: CoordinatorClient.Snapshot, nodes: [String: Camsync_V1_NodeStatus]) {
        let client = try coordinatorClient()
        defer { client.close() }
        let snapshot = try client.snapshot()
        var statuses: [String: Camsync_V1_NodeStatus] = [:]
        for (id, process) in nodes where process.isRunning {
            let control = try controlClient(id)
            defer { control.close() }
            statuses[id] = try control.status()
        }
        return (snapshot, statuses)
    }
}

public struct ClusterWaitError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
