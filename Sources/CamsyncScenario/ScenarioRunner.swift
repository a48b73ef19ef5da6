import CamsyncProcessLab
public import CamsyncTopology
public import CamsyncClient
import CamsyncPolicy
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// An already-running cluster: the coordinator's endpoints and each node's control endpoint.
public struct RemoteCluster: Sendable {
    public var commands: String
    public var events: String
    /// Node id → control endpoint.
    public var controls: [String: String]
    /// Admin CURVE keys when the cluster runs with CURVE.
    public var curve: ClientCurve?

    public init(commands: String, events: String, controls: [String: String], curve: ClientCurve? = nil) {
        self.commands = commands
        self.events = events
        self.controls = controls
        self.curve = curve
    }
}

/// The outcome of one step.
public struct StepReport: Sendable {
    public enum Status: String, Sendable { case passed, failed, notRun = "not run" }
    public var index: Int
    public var title: String
    public var status: Status
    /// On failure: expected vs actual, and the relevant app events.
    public var failure: String?
    public var milliseconds: Int
}

/// What a scenario run found: pass/fail per step and, on failure, a readable diff.
public struct ScenarioReport: Sendable, CustomStringConvertible {
    public var name: String
    public var path: String?
    public var rules: [String]
    public var seeds: [String]
    /// The cluster could not be started or reached (then no step ran).
    public var setupError: String?
    public var steps: [StepReport]
    public var seconds: Double
    /// The run directory with every process's log (kept when the run failed).
    public var runDirectory: String?

    public var passed: Bool { setupError == nil && steps.allSatisfy { $0.status == .passed } }

    /// The failing step's diff (or the setup error), empty when the run passed.
    public var failureText: String {
        if let setupError { return "setup failed: \(setupError)" }
        return steps.filter { $0.failure != nil }.map { "\($0.title) — FAILED\n\($0.failure!)" }.joined(separator: "\n")
    }

    public var description: String {
        var text = "scenario \"\(name)\"" + (path.map { " (\($0))" } ?? "")
            + " — rules \(rules.joined(separator: ", ")); seeds \(seeds.joined(separator: ", "))\n"
        if let setupError { text += "  SETUP FAILED: \(setupError)\n" }
        for step in steps {
            let mark = switch step.status { case .passed: "ok  "; case .failed: "FAIL"; case .notRun: "skip" }
            text += "  \(mark) \(step.title) [\(step.milliseconds) ms]\n"
            if let failure = step.failure {
                text += failure.split(separator: "\n", omittingEmptySubsequences: false).map { "       \($0)" }.joined(separator: "\n") + "\n"
            }
        }
        text += passed ? "PASSED in \(String(format: "%.1f", seconds)) s\n" : "FAILED after \(String(format: "%.1f", seconds)) s"
            + (runDirectory.map { " (logs in \($0))" } ?? "") + "\n"
        return text
    }
}

/// Runs a scenario against a cluster it starts from the scenario's topology (`local`) or an
/// already-running one (`remote`; kill/pause/restart steps are then refused). Blocking: call it
/// off Swift's cooperative pool. Every wait is bounded; processes it started are always stopped.
public final class ScenarioRunner {
    public enum Mode: Sendable {
        /// Start the scenario's topology with this camsync binary, in `runDirectory` (default: a fresh temp dir,
        /// removed after a passing run).
        case local(executable: String, runDirectory: String? = nil)
        case remote(RemoteCluster)
    }

    public let mode: Mode
    /// Called with one line per step as it runs.
    public var progress: ((String) -> Void)?
    /// How long the cluster may take to start and join.
    public var startTimeout: Double = 30

    public init(mode: Mode) {
        self.mode = mode
    }

    public func run(_ scenario: Scenario) -> ScenarioReport {
        let started = Date()
        var report = runTimed(scenario)
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    private func runTimed(_ scenario: Scenario) -> ScenarioReport {
        var report = ScenarioReport(name: scenario.name, path: scenario.path, rules: scenario.rules, seeds: scenario.seeds,
                                    setupError: nil, steps: [], seconds: 0, runDirectory: nil)
        let access: ClusterAccess
        var cluster: LocalCluster?
        var runDirectory: String?
        switch mode {
        case .local(let executable, let dir):
            let directory = dir ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("camsync-scenario-\(UUID().uuidString.prefix(8))").path
            runDirectory = directory
            report.runDirectory = directory
            do {
                let topology = Self.topology(for: scenario, runDirectory: directory)
                let local = try LocalCluster(topology: topology, runDirectory: directory, executable: executable)
                cluster = local
                access = try ClusterAccess(local: local)
                try local.start(timeout: startTimeout)
                try access.waitForDisplays(scenario, timeout: 10)
            } catch {
                report.setupError = "\(error)" + (cluster.map { Self.logTails($0) } ?? "")
                cluster?.stop(grace: 2)
                return report
            }
        case .remote(let remote):
            if let step = scenario.steps.first(where: { $0.action.needsLocalCluster }) {
                report.setupError = "\(step.title) needs processes the runner started: run this scenario with --local "
                    + "(against an already-running cluster only act, wait_for, sleep_ms, retry_same_request, concurrent and expect steps work)"
                return report
            }
            do {
                access = try ClusterAccess(remote: remote)
            } catch {
                report.setupError = "\(error)"
                return report
            }
        }
        runSteps(scenario, access: access, cluster: cluster, into: &report)
        // Stopped and cleaned up before the report is returned: a passed run in a temporary
        // directory leaves nothing, and its report names no directory (with `--json` too).
        if let cluster {
            cluster.stop(grace: 3)
            if report.passed, let runDirectory, case .local(_, nil) = mode {
                try? FileManager.default.removeItem(atPath: runDirectory)
                report.runDirectory = nil
            }
        }
        return report
    }

    private func runSteps(_ scenario: Scenario, access: ClusterAccess, cluster: LocalCluster?, into report: inout ScenarioReport) {
        var baseline = (try? access.snapshot().sequence) ?? 0
        var failed = false
        for step in scenario.steps {
            if failed {
                report.steps.append(StepReport(index: step.index, title: step.title, status: .notRun, failure: nil, milliseconds: 0))
                continue
            }
            progress?(step.title)
            let stepStart = Date()
            if case .check = step.action {} else {
                baseline = (try? access.snapshot().sequence) ?? baseline
            }
            let failure = StepExecution(access: access, cluster: cluster, step: step, baseline: baseline).run()
            let ms = Int(Date().timeIntervalSince(stepStart) * 1000)
            report.steps.append(StepReport(index: step.index, title: step.title, status: failure == nil ? .passed : .failed,
                                           failure: failure, milliseconds: ms))
            if failure != nil { failed = true }
        }
    }

    /// The scenario's nodes with ipc endpoints under the run directory.
    public static func topology(for scenario: Scenario, runDirectory: String) -> Topology {
        Topology(name: scenario.name,
                 coordinator: .init(commands: "ipc://\(runDirectory)/coordinator-commands.sock",
                                    events: "ipc://\(runDirectory)/coordinator-events.sock"),
                 settings: scenario.settings, security: .init(curve: false),
                 nodes: scenario.nodes.map { Topology.Node(config: $0.config, control: nil, host: nil) })
    }

    static func logTails(_ cluster: LocalCluster) -> String {
        var logs = ""
        for name in ["coordinator"] + cluster.topology.nodes.map(\.id) {
            let text = (try? String(contentsOfFile: cluster.logPath(name), encoding: .utf8)) ?? ""
            logs += "\n--- \(name).log (tail)\n" + text.split(separator: "\n").suffix(8).joined(separator: "\n")
        }
        return logs
    }
}

/// Clients for the cluster under test; one ZeroMQ context, short-lived sockets per call.
final class ClusterAccess {
    let context: ZMQContext
    let commands: String
    let curve: ClientCurve?
    let controls: [String: String]
    let local: LocalCluster?
    var paused: Set<String> = []

    init(local: LocalCluster) throws {
        context = try ZMQContext(ioThreads: 1)
        commands = local.commandEndpoint
        curve = local.adminCurve
        controls = Dictionary(uniqueKeysWithValues: local.topology.nodes.map { ($0.id, local.controlEndpoint($0.id)) })
        self.local = local
    }

    init(remote: RemoteCluster) throws {
        context = try ZMQContext(ioThreads: 1)
        commands = remote.commands
        curve = remote.curve
        controls = remote.controls
        local = nil
    }

    func snapshot(timeoutMilliseconds: Int = 2_000) throws -> CoordinatorClient.Snapshot {
        let client = try CoordinatorClient(context: context, endpoint: commands, sender: Envelope.adminSender, curve: curve)
        defer { client.close() }
        return try client.snapshot(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Nodes whose control socket can answer: started and not paused (local), every listed one (remote).
    var reachableNodes: [String] {
        controls.keys.sorted().filter { id in
            guard !paused.contains(id) else { return false }
            guard let local else { return true }
            return local.nodes[id]?.isRunning ?? false
        }
    }

    func status(_ node: String, after: UInt64 = 0, timeoutMilliseconds: Int = 2_000) throws -> Camsync_V1_NodeStatus {
        guard let endpoint = controls[node] else { throw ClusterWaitError(message: "no control endpoint for node '\(node)'") }
        guard reachableNodes.contains(node) else {
            throw ClusterWaitError(message: "\(node) is \(paused.contains(node) ? "paused" : "not running"): it cannot report its app events")
        }
        let client = try ControlClient(context: context, endpoint: endpoint, node: node)
        defer { client.close() }
        return try client.status(afterSequence: after, timeoutMilliseconds: timeoutMilliseconds)
    }

    func act(_ node: String, _ command: Command) throws -> UInt64 {
        guard let endpoint = controls[node] else { throw ClusterWaitError(message: "no control endpoint for node '\(node)'") }
        let client = try ControlClient(context: context, endpoint: endpoint, node: node)
        defer { client.close() }
        return try client.act(command, timeoutMilliseconds: 10_000)
    }

    /// Displays that name a device attach once it is alive; steps assume they have.
    func waitForDisplays(_ scenario: Scenario, timeout: Double) throws {
        let expected = scenario.nodes.compactMap { node in node.config.display?.attachedTo.map { (NodeID(node.id), NodeID($0)) } }
        guard !expected.isEmpty else { return }
        try poll(timeout: timeout, what: "displays to attach") {
            let state = try snapshot().state
            return expected.allSatisfy { state.nodes[$0.0]?.attachedTo == $0.1 }
        }
    }

    func poll(timeout: Double, what: String, _ condition: () throws -> Bool) throws {
        try waitUntil(timeout: timeout, what: what, condition)
    }
}
