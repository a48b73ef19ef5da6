public import CamsyncTopology
public import CamsyncClient
import CamsyncConfig
import CamsyncCoordinator
public import CamsyncEtcd
import CamsyncPKI
import CamsyncPolicy
import CamsyncRuntime
public import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
import CamsyncCoordinatorCore
public import CamsyncEtcdModel
#endif

/// Runs a topology's processes on this machine: one `camsync coordinator` and one `camsync node`
/// per node, each with its own log and pid file under the run directory. Used by `cluster up`,
/// `demo`, `ctl scenario run --local`, the benchmarks, the soak and the integration tests.
/// An HA topology (SPEC K6; `etcd:` + `coordinators:`) also starts its etcd members (`EtcdCluster`,
/// kept in the run directory) and one `camsync coordinator --etcd` per coordinator; nodes get every
/// coordinator's endpoints as comma lists, and clients here reach the leader (`LeaderFollowing`).
public final class LocalCluster: @unchecked Sendable {
    public let topology: Topology
    public let runDirectory: String
    public let executable: String
    public private(set) var keys: ClusterKeys?
    /// The coordinator (single mode).
    public private(set) var coordinator: ManagedProcess?
    /// HA mode: the coordinators started here, by name.
    public private(set) var coordinators: [String: ManagedProcess] = [:]
    /// HA mode with `etcd.members`: the etcd members (in the run directory), once `startEtcd()` ran.
    public private(set) var etcd: EtcdCluster?
    public private(set) var nodes: [String: ManagedProcess] = [:]
    /// Which coordinators (by name) a node is given, when not all of them (tests: a node that
    /// reaches only one coordinator; stale lists). Default: every coordinator.
    public var nodeCoordinators: [String: [String]] = [:]
    /// With CURVE: the coordinators (by name) the nodes believe, when not all of them (tests: a
    /// coordinator removed from the trusted list while it still runs). Nodes then get
    /// `keys/coordinators-nodes.txt` listing only these; the coordinators keep `coordinators.txt`.
    public var nodeTrust: [String]?
    /// The etcd identity (client certificate file and user, `etcdClientTLS(as:)`) an HA coordinator
    /// starts with, when not its own name: a certificate rotated to a new user (`c1-r2`).
    public var etcdIdentity: [String: String] = [:]
    /// Extra arguments for the coordinator (benchmarks: `--durability off`, …).
    public var coordinatorArguments: [String] = []
    /// Extra arguments for one HA coordinator, by name (tests: each its own `--http`).
    public var coordinatorArgumentsByName: [String: [String]] = [:]
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
        keys = topology.security?.curve == true ? try Self.loadKeys(topology, runDirectory) : nil
        for node in topology.nodes {
            try topology.nodeConfigYAML(node).write(toFile: configPath(node.id), atomically: true, encoding: .utf8)
        }
    }

    /// Reads the keys again, making the pairs that are missing (a key file removed to rotate it, as
    /// `camsync keygen --rotate` does), and rewrites `nodes.txt` (with `retiring` node keys still
    /// listed beside the new ones) and `coordinators.txt`.
    public func reloadKeys(retiring: [String: String] = [:]) throws {
        guard keys != nil else { return }
        keys = try Self.loadKeys(topology, runDirectory, retiring: retiring)
    }

    private static func loadKeys(_ topology: Topology, _ runDirectory: String, retiring: [String: String] = [:]) throws -> ClusterKeys {
        try ClusterKeys.loadOrGenerate(directory: runDirectory + "/keys", nodes: topology.nodes.map(\.id),
                                       coordinators: topology.allCoordinators.map { (topology.processName($0), $0.commands, $0.events) },
                                       retiring: retiring)
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
    /// Where nodes reach the coordinator (HA: every coordinator, comma-separated).
    public var commandEndpoint: String { topology.allCoordinators.map(\.commands).joined(separator: ",") }
    public var eventEndpoint: String { topology.allCoordinators.map(\.events).joined(separator: ",") }
    /// Where clients on this machine reach it (the local endpoints when the topology has them; HA:
    /// the first coordinator's, see `leaderCommandEndpoint()`).
    public var localCommandEndpoint: String { Self.localCommands(topology.coordinator) }
    /// Every coordinator's event endpoint reachable from here, comma-separated (a SUB connects to all;
    /// only the leader publishes).
    public var localEventEndpoint: String {
        topology.allCoordinators.map { $0.localEvents ?? $0.events }.joined(separator: ",")
    }
    /// Every coordinator's command endpoint reachable from here, in topology order.
    public var localCommandEndpoints: [String] { topology.allCoordinators.map(Self.localCommands) }

    public static func localCommands(_ coordinator: Topology.Coordinator) -> String { coordinator.localCommands ?? coordinator.commands }

    /// Each coordinator's name by the command endpoints it is reached at (local and advertised).
    public static func coordinatorNames(_ topology: Topology) -> [String: String] {
        var names: [String: String] = [:]
        for c in topology.allCoordinators {
            names[c.commands] = topology.processName(c)
            names[localCommands(c)] = topology.processName(c)
        }
        return names
    }

    /// Where a client here reaches a coordinator an HA standby names as the leader: that coordinator's
    /// local endpoint when the topology knows its name, else the endpoint it advertises.
    public static func reach(_ topology: Topology) -> (Camsync_V1_CoordinatorAddress) -> String {
        { leader in
            topology.allCoordinators.first { $0.name == leader.name }.map(localCommands) ?? leader.commandEndpoint
        }
    }

    /// The client URLs of the topology's etcd: the members started here, or its `endpoints`.
    public var etcdEndpoints: [String] {
        if let etcd { return etcd.members.map(\.clientURL) }
        return topology.etcd?.endpoints ?? []
    }

    /// The etcd key prefix of this cluster (`etcd.prefix`, default `/camsync/NAME`).
    public var etcdPrefix: String { topology.etcd?.prefix ?? "/camsync/\(topology.name)" }

    /// Where the etcd CA and the client certificates are (`etcd.certificates`, default `RUNDIR/tls`).
    public var etcdCertificateDirectory: String { Self.etcdCertificateDirectory(topology, runDirectory: runDirectory) }

    public static func etcdCertificateDirectory(_ topology: Topology, runDirectory: String) -> String {
        guard let dir = topology.etcd?.certificates else { return "\(runDirectory)/tls" }
        return dir.hasPrefix("/") ? dir : "\(runDirectory)/\(dir)"
    }

    /// Mutual TLS for a client of the topology's etcd as `identity` (default `root`, which `cluster up`
    /// issues) from the files already in its certificate directory, as `ctl` finds `keys/` by
    /// itself; nil with `plaintext: true`, without an `etcd:` section, or when the files are not
    /// there. Nothing is issued: a client that only reads never makes a CA.
    public static func existingEtcdClientTLS(_ topology: Topology, runDirectory: String, as identity: String = "root") -> EtcdClientTLS? {
        guard topology.etcd != nil, topology.etcd?.plaintext != true else { return nil }
        let directory = etcdCertificateDirectory(topology, runDirectory: runDirectory)
        let files = CertificateFiles(directory: directory, name: identity)
        let trustedCA = "\(directory)/ca.crt"
        guard files.exist, FileManager.default.fileExists(atPath: trustedCA) else { return nil }
        return EtcdClientTLS(trustedCA: trustedCA, certificate: files.certificate, privateKey: files.privateKey)
    }

    /// Mutual TLS for the etcd client `identity` (a coordinator's process name, or `root`, the
    /// administrator); nil when the topology asks for plaintext. With etcd members started here, the
    /// certificate is issued by the run directory's lab CA when missing; with an etcd run elsewhere
    /// (`etcd.endpoints`), it must be in `etcd.certificates` already: its CA key is the operator's, offline.
    public func etcdClientTLS(as identity: String) throws -> EtcdClientTLS? {
        guard topology.etcd?.plaintext != true else { return nil }
        guard topology.etcd?.members != nil else {
            guard let tls = Self.existingEtcdClientTLS(topology, runDirectory: runDirectory, as: identity) else {
                throw TopologyError(message: "no ca.crt, \(identity).crt and \(identity).key in \(etcdCertificateDirectory): issue them with "
                                    + "`camsync keygen --etcd-certs` where the CA key is kept and copy them there (docs/OPERATIONS.md)")
            }
            return tls
        }
        let certificates = try EtcdCertificates.openLab(directory: etcdCertificateDirectory, clusterName: topology.name)
        let files = try certificates.client(identity, commonName: topology.etcdUser(identity))
        return EtcdClientTLS(trustedCA: certificates.trustedCA, certificate: files.certificate, privateKey: files.privateKey)
    }

    /// A client of this cluster's etcd as `identity` (default the administrator, `root`).
    public func withEtcdClient<R: Sendable>(as identity: String = "root", _ body: (EtcdClient) async throws -> R) async throws -> R {
        let endpoints = try etcdEndpoints.map { try EtcdEndpoint(parsing: $0) }
        let settings = EtcdClient.Settings(requestTimeout: .seconds(5), tls: try etcdClientTLS(as: identity))
        return try await EtcdClient.with(endpoints: endpoints, settings: settings, body)
    }

    public func controlEndpoint(_ node: String) -> String {
        topology.nodes.first { $0.id == node }?.control ?? "ipc://\(runDirectory)/\(node).sock"
    }

    /// CURVE settings for an admin client (nil without CURVE): it believes the coordinators of
    /// `coordinators.txt`, at the endpoints nodes use and at their local ones.
    public var adminCurve: ClientCurve? {
        guard let keys else { return nil }
        return ClientCurve(publicKey: keys.admin.publicKey, secretKey: keys.admin.secretKey,
                           coordinators: Self.trustedHere(topology, keys.trusted))
    }

    /// `trusted` (a `coordinators.txt`), plus each coordinator's key at its local endpoints
    /// (`localCommands`/`localEvents`), where clients on this machine reach it.
    public static func trustedHere(_ topology: Topology, _ trusted: TrustedCoordinators) -> TrustedCoordinators {
        var here = trusted
        for c in topology.allCoordinators {
            guard let entry = trusted.entries.first(where: { $0.name == topology.processName(c) }) else { continue }
            here.entries.append(.init(name: entry.name, publicKey: entry.publicKey, commandEndpoint: localCommands(c),
                                      eventEndpoint: c.localEvents ?? c.events))
        }
        return here
    }

    // MARK: Processes

    private func launch(_ name: String, host: String?, arguments: [String], executable: String? = nil) throws -> ManagedProcess {
        let (executable, arguments) = NetworkNamespace.command(in: host, executable: executable ?? self.executable,
                                                               arguments: arguments)
        let process = try ManagedProcess(name: name, executable: executable, arguments: arguments, logPath: logPath(name))
        process.killsOnDeinit = stopsProcessesOnDeinit
        try "\(process.pid)\n".write(toFile: pidPath(name), atomically: true, encoding: .utf8)
        return process
    }

    /// Starts the coordinator (single mode), or every HA coordinator that is not running yet.
    public func startCoordinator() throws {
        if topology.isHighAvailability {
            for c in topology.allCoordinators where coordinators[topology.processName(c)]?.isRunning != true {
                try startCoordinator(named: topology.processName(c))
            }
            return
        }
        let c = topology.coordinator
        var settings = coordinatorSettings(c)
        settings.dataDirectory = dataDirectory
        settings.durability = JournalDurability(rawValue: c.durability ?? "full") ?? .full
        coordinator = try launch("coordinator", host: c.host, arguments: launchArguments(settings))
        coordinators["coordinator"] = coordinator
    }

    /// Starts the HA coordinator `name` (etcd must be up: `startEtcd()`).
    public func startCoordinator(named name: String) throws {
        guard let ha = topology.etcd, let c = topology.allCoordinators.first(where: { topology.processName($0) == name }) else {
            throw TopologyError(message: "no HA coordinator '\(name)' in topology '\(topology.name)'")
        }
        guard !etcdEndpoints.isEmpty else { throw TopologyError(message: "start etcd before the coordinators (startEtcd)") }
        var settings = coordinatorSettings(c)
        settings.highAvailability = HighAvailabilitySettings(
            etcd: try etcdEndpoints.map { try EtcdEndpoint(parsing: $0) }, name: name, prefix: etcdPrefix,
            leaseSeconds: ha.leaseSeconds ?? HighAvailabilitySettings(etcd: [], name: "").leaseSeconds,
            advertisedCommandEndpoint: c.commands, advertisedEventEndpoint: c.events)
        settings.highAvailability?.etcdTLS = try etcdClientTLS(as: etcdIdentity[name] ?? name)
        coordinators[name] = try launch(name, host: c.host, arguments: launchArguments(settings))
    }

    /// Starts the etcd members of an HA topology with `etcd.members` that are not running (kept in
    /// the run directory: `etcd-N.pid`, `.log`, `.data`, and `etcd-members.json` with their ports),
    /// and waits until each reports healthy. Nothing to do for `etcd.endpoints` or single mode.
    public func startEtcd(timeout: Double = 90) throws {
        guard let section = topology.etcd, let size = section.members else { return }
        var timing = EtcdCluster.Timing()
        if let v = section.heartbeatMs { timing.heartbeatMilliseconds = v }
        if let v = section.electionTimeoutMs { timing.electionTimeoutMilliseconds = v }
        let cluster = try EtcdCluster.open(directory: runDirectory, size: size,
                                           placements: section.memberHosts?.map { .init(host: $0.host, address: $0.address) },
                                           timing: timing, security: section.plaintext == true ? .plaintext : .mutualTLS)
        cluster.stopsMembersOnDeinit = stopsProcessesOnDeinit
        etcd = cluster
        try cluster.waitUntilServing(timeout: timeout)
        guard cluster.certificates != nil else { return }
        let grant = EtcdAccessGrant(prefix: etcdPrefix, role: topology.etcdRole, users: topology.coordinatorProcessNames.map(topology.etcdUser))
        guard let host = section.memberHosts?.first?.host, let tls = try etcdClientTLS(as: "root") else {
            return try Blocking.run { try await cluster.configureAuth([grant]) }
        }
        // Members in network namespaces are reachable only from there: `camsync etcd-auth` runs in the first one's.
        let (executable, arguments) = NetworkNamespace.command(in: host, executable: self.executable, arguments: [
            "etcd-auth", "--etcd", etcdEndpoints.joined(separator: ","), "--etcd-ca", tls.trustedCA, "--etcd-cert", tls.certificate,
            "--etcd-key", tls.privateKey, "--prefix", grant.prefix, "--role", grant.role,
        ] + grant.users.flatMap { ["--user", $0] })
        let result = try runCommand(executable, arguments, timeout: 60)
        guard result.status == 0 else { throw TopologyError(message: "etcd auth setup failed: \(result.output)") }
    }

    /// A coordinator's settings as the topology gives them (the documented defaults otherwise).
    private func coordinatorSettings(_ c: Topology.Coordinator) -> CoordinatorSettings {
        let s = topology.settings
        let defaults = CoordinatorSettings.defaults
        return CoordinatorSettings(
            commandEndpoint: ([c.bindCommands ?? c.commands] + [c.localCommands].compactMap { $0 }).joined(separator: ","),
            eventEndpoint: ([c.bindEvents ?? c.events] + [c.localEvents].compactMap { $0 }).joined(separator: ","),
            dataDirectory: "", heartbeatIntervalMilliseconds: s?.heartbeatMs ?? defaults.heartbeatIntervalMilliseconds,
            liveness: s?.liveness ?? defaults.liveness, snapshotEvery: s?.snapshotEvery ?? defaults.snapshotEvery,
            policy: PolicySettings(
                stageWindowLimitPerScreen: s?.stageWindowLimit ?? defaults.policy.stageWindowLimitPerScreen,
                backgroundMediaMemoryLimitMB: s?.backgroundMediaLimitMb ?? defaults.policy.backgroundMediaMemoryLimitMB,
                pipRestoreDeadlineMilliseconds: s?.pipRestoreDeadlineMs ?? defaults.policy.pipRestoreDeadlineMilliseconds))
    }

    /// The command line of a coordinator (`CoordinatorLaunch`), then whatever `coordinatorArguments` adds.
    private func launchArguments(_ settings: CoordinatorSettings) -> [String] {
        // Each coordinator serves with a key pair of its own; `coordinators.txt` lists them all.
        let name = settings.highAvailability?.name ?? "coordinator"
        let keyFiles = keys.map {
            CoordinatorLaunch.KeyFiles(secretKey: $0.coordinatorSecretKeyPath(name), nodeKeys: $0.path("nodes.txt"),
                                       adminKeys: $0.path("admin.pub"), coordinatorKeys: $0.trustedCoordinatorsPath)
        }
        return CoordinatorLaunch(settings: settings, keyFiles: keyFiles).arguments + coordinatorArguments
            + (settings.highAvailability.flatMap { coordinatorArgumentsByName[$0.name] } ?? [])
    }

    /// The command and event endpoints a node is given: every coordinator's (comma lists), or the
    /// ones `nodeCoordinators` names for it.
    public func coordinatorEndpoints(for node: String) -> (commands: String, events: String) {
        var chosen = topology.allCoordinators
        if let names = nodeCoordinators[node] { chosen = chosen.filter { names.contains($0.name ?? "") } }
        return (chosen.map(\.commands).joined(separator: ","), chosen.map(\.events).joined(separator: ","))
    }

    public func startNode(_ id: String) throws {
        guard let node = topology.nodes.first(where: { $0.id == id }) else {
            throw TopologyError(message: "no node '\(id)' in topology '\(topology.name)'")
        }
        let s = topology.settings
        let isAgent = node.config.agent == "c"
        let endpoints = coordinatorEndpoints(for: id)
        var arguments = [
            "--config", configPath(id), "--coordinator", endpoints.commands, "--events", endpoints.events,
            "--control", controlEndpoint(id), "--heartbeat-ms", "\(s?.heartbeatMs ?? 500)", "--liveness", "\(s?.liveness ?? 3)",
        ]
        if let keys {
            var trustedPath = keys.trustedCoordinatorsPath
            if let names = nodeTrust {
                trustedPath = keys.path("coordinators-nodes.txt")
                let trusted = TrustedCoordinators(entries: keys.trusted.entries.filter { names.contains($0.name) })
                try trusted.fileText.write(toFile: trustedPath, atomically: true, encoding: .utf8)
            }
            arguments += ["--secret-key", keys.path("\(id).key"), "--coordinator-keys", trustedPath]
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
        if topology.etcd?.members != nil {
            let before = Set(topology.etcdMemberNames.filter { runRecord.entry($0)?.alive == true })
            try startEtcd()
            started += topology.etcdMemberNames.filter { !before.contains($0) }
        }
        for name in topology.coordinatorProcessNames where runRecord.entry(name)?.alive != true {
            if topology.isHighAvailability { try startCoordinator(named: name) } else { try startCoordinator() }
            started.append(name)
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
        try startEtcd()
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

    /// Sends `signal` to the HA coordinator `name`.
    public func signalCoordinator(named name: String, _ signal: Int32) {
        coordinators[name]?.signal(signal)
        if signal == SIGKILL { _ = coordinators[name]?.wait(timeout: 5) }
    }

    /// Stops every process: nodes first, then the coordinators, then etcd's members (SIGTERM, SIGKILL after `grace`).
    public func stop(grace: Double = 5) {
        for (_, process) in nodes.sorted(by: { $0.key < $1.key }) {
            process.signal(SIGCONT)
            process.signal(SIGTERM)
        }
        for (_, process) in nodes { process.stop(grace: grace) }
        for (_, process) in coordinators {
            process.signal(SIGCONT)
            process.signal(SIGTERM)
        }
        for (_, process) in coordinators { process.stop(grace: grace) }
        etcd?.stop()
        for name in Array(nodes.keys) + Array(coordinators.keys) { try? FileManager.default.removeItem(atPath: pidPath(name)) }
    }

    deinit { if stopsProcessesOnDeinit { stop(grace: 2) } }

    // MARK: Clients and waiting

    /// A client of the coordinator; in HA mode, of the leader (found with `leaderCommandEndpoint()`).
    public func coordinatorClient() throws -> CoordinatorClient {
        let endpoint = topology.isHighAvailability ? try leaderCommandEndpoint() : localCommandEndpoint
        return try CoordinatorClient(context: context, endpoint: endpoint, sender: "admin", curve: adminCurve)
    }

    /// A client of the coordinator `name` itself (HA: leader or standby), at its local endpoint.
    public func coordinatorClient(named name: String) throws -> CoordinatorClient {
        guard let c = topology.allCoordinators.first(where: { topology.processName($0) == name }) else {
            throw TopologyError(message: "no coordinator '\(name)' in topology '\(topology.name)'")
        }
        return try CoordinatorClient(context: context, endpoint: Self.localCommands(c), sender: "admin", curve: adminCurve)
    }

    /// The local endpoint of the coordinator that answers a snapshot request as the leader: the
    /// coordinators are asked in turn and a standby's NOT_LEADER naming the leader is followed once.
    public func leaderCommandEndpoint(timeoutMilliseconds: Int = 3_000) throws -> String {
        try LeaderFollowing.run(context: context, endpoints: localCommandEndpoints, curve: adminCurve,
                                timeoutMilliseconds: timeoutMilliseconds, reach: Self.reach(topology)) { client, timeout in
            _ = try client.snapshot(timeoutMilliseconds: timeout)
            return client.endpoint
        }
    }

    public func controlClient(_ node: String) throws -> ControlClient {
        try ControlClient(context: context, endpoint: controlEndpoint(node), node: node)
    }

    public func eventSubscriber(topics: [String] = [EventTopic.everyBatch, EventTopic.heartbeat]) throws -> EventSubscriber {
        try EventSubscriber(context: context, endpoint: localEventEndpoint, topics: topics, curve: adminCurve)
    }

    /// Waits until the publishing coordinator's own clock has moved `intervals` heartbeat intervals
    /// on: a heartbeat stamped at least that long after the first one heard here. The coordinator's
    /// timers (K1's liveness checks among them) run on the loop that stamps its heartbeats, so once
    /// this returns, whatever they had due in that span has happened and shows in a snapshot. This is
    /// how a test waits to show that something did *not* happen, instead of sleeping.
    public func waitForHeartbeatIntervals(_ intervals: Int, timeout: Double) throws {
        let subscriber = try eventSubscriber(topics: ["hb"])
        defer { subscriber.close() }
        let deadline = Date().addingTimeInterval(timeout)
        var first: Int64?
        while Date() < deadline {
            guard let (_, envelope) = try subscriber.next(timeoutMilliseconds: 200),
                  case .coordinatorHeartbeat(let heartbeat)? = envelope.body else { continue }
            guard let start = first else {
                first = heartbeat.timeMs
                continue
            }
            if heartbeat.timeMs - start >= Int64(intervals) * Int64(heartbeat.heartbeatIntervalMs) { return }
        }
        throw ClusterWaitError(message: "timed out after \(timeout) s waiting for \(intervals) heartbeat intervals to pass")
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
        try CamsyncProcessLab.waitUntil(timeout: timeout, what: what, condition)
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
