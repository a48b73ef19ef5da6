public import CamsyncConfig
import CamsyncEtcd
import CamsyncPKI
import Foundation
import Yams
import CamsyncEtcdModel

/// A whole cluster described in one YAML file (docs/OPERATIONS.md "Topology files"):
/// the coordinator, every node (the same fields as a node config file) and the settings.
/// In HA mode (SPEC K6) an `etcd:` section and a `coordinators:` list replace `coordinator:`.
public struct Topology: Codable, Sendable, Equatable {
    public var name: String
    /// The coordinator; in HA mode the first of `coordinators` (the one clients try first).
    public var coordinator: Coordinator
    /// HA mode: every coordinator (each with a `name`); nil with a single `coordinator:`.
    public var coordinators: [Coordinator]?
    /// HA mode: the etcd cluster that holds leadership and the command log.
    public var etcd: Etcd?
    public var settings: Settings?
    public var security: Security?
    public var nodes: [Node]

    public struct Coordinator: Codable, Sendable, Equatable {
        /// HA mode: the coordinator's name (unique; its process, log and pid file are named after it).
        public var name: String?
        /// ROUTER endpoint nodes connect to (e.g. `tcp://10.231.0.1:5555`); the coordinator binds it.
        public var commands: String
        /// PUB endpoint.
        public var events: String
        /// Journal directory; relative paths are under the run directory.
        public var dataDir: String?
        public var durability: String?
        /// Network namespace (or host label) the coordinator runs in; empty = this machine.
        public var host: String?
        /// The address to bind when it differs from the one nodes connect to (e.g. `tcp://*:5555`).
        public var bindCommands: String?
        public var bindEvents: String?
        /// Extra endpoints on the coordinator's machine for local admin tools (`ctl`, tests) when the
        /// coordinator's network address is not reachable from there (a network-namespace lab).
        /// `cluster up` binds them too and local clients use them.
        public var localCommands: String?
        public var localEvents: String?

        public init(name: String? = nil, commands: String, events: String, dataDir: String? = nil, durability: String? = nil,
                    host: String? = nil, bindCommands: String? = nil, bindEvents: String? = nil) {
            self.name = name
            self.commands = commands
            self.events = events
            self.dataDir = dataDir
            self.durability = durability
            self.host = host
            self.bindCommands = bindCommands
            self.bindEvents = bindEvents
        }
    }

    /// HA mode's etcd (docs/OPERATIONS.md "High availability (etcd)"): either `members: N`, started
    /// by `cluster up` (free loopback ports, data under the run directory), or the `endpoints` of an
    /// existing etcd cluster.
    public struct Etcd: Codable, Sendable, Equatable {
        /// How many members `cluster up` starts (3 or 5; 1 for a toy).
        public var members: Int?
        /// Client URLs of an existing etcd cluster (`http://10.0.0.1:2379`, …).
        public var endpoints: [String]?
        /// Optional, with `members`: where each member runs (a network namespace) and the address it
        /// listens on there (ports 2379/2380). Without it members listen on loopback, on free ports.
        public var memberHosts: [MemberHost]?
        /// The coordinators' lease TTL (`--lease-seconds`, default 2).
        public var leaseSeconds: Int64?
        /// Key prefix of this cluster on etcd (default `/camsync/NAME`).
        public var prefix: String?
        /// etcd's raft timing for the members `cluster up` starts (defaults 100 / 1000 ms, etcd's).
        public var heartbeatMs: Int?
        public var electionTimeoutMs: Int?
        /// Plain http to etcd, no client certificates, no auth: a lab only (coordinators get
        /// `--etcd-plaintext` and warn). Default false: mutual TLS and a role per cluster.
        public var plaintext: Bool?
        /// With `endpoints`: the directory of the etcd CA (`ca.crt`) and the coordinators' client
        /// certificates (`NAME.crt`, `NAME.key`; `camsync keygen --etcd`). Default `RUNDIR/tls`.
        public var certificates: String?

        public struct MemberHost: Codable, Sendable, Equatable {
            public var host: String
            public var address: String
            public init(host: String, address: String) {
                self.host = host
                self.address = address
            }
        }

        public init(members: Int? = nil, endpoints: [String]? = nil, memberHosts: [MemberHost]? = nil,
                    leaseSeconds: Int64? = nil, prefix: String? = nil) {
            self.members = members
            self.endpoints = endpoints
            self.memberHosts = memberHosts
            self.leaseSeconds = leaseSeconds
            self.prefix = prefix
        }
    }

    public struct Settings: Codable, Sendable, Equatable {
        public var heartbeatMs: Int64?
        public var liveness: Int64?
        public var stageWindowLimit: Int?
        public var backgroundMediaLimitMb: Int?
        public var pipRestoreDeadlineMs: Int64?
        public var snapshotEvery: UInt64?

        public init(heartbeatMs: Int64? = nil, liveness: Int64? = nil, stageWindowLimit: Int? = nil,
                    backgroundMediaLimitMb: Int? = nil, pipRestoreDeadlineMs: Int64? = nil, snapshotEvery: UInt64? = nil) {
            self.heartbeatMs = heartbeatMs
            self.liveness = liveness
            self.stageWindowLimit = stageWindowLimit
            self.backgroundMediaLimitMb = backgroundMediaLimitMb
            self.pipRestoreDeadlineMs = pipRestoreDeadlineMs
            self.snapshotEvery = snapshotEvery
        }
    }

    public struct Security: Codable, Sendable, Equatable {
        /// CURVE on every socket, with keys generated into the run directory (default true for `cluster up`).
        public var curve: Bool?
        public init(curve: Bool? = nil) { self.curve = curve }
    }

    public struct Node: Codable, Sendable, Equatable {
        /// The node config, as in a node config file.
        public var config: NodeConfig.File
        /// Control endpoint for `camsync ctl`; default `ipc://RUNDIR/ID.sock`.
        public var control: String?
        /// Network namespace (or host label) the node runs in; empty = this machine.
        public var host: String?

        public init(config: NodeConfig.File, control: String? = nil, host: String? = nil) {
            self.config = config
            self.control = control
            self.host = host
        }

        enum CodingKeys: String, CodingKey { case control, host }

        public init(from decoder: any Decoder) throws {
            config = try NodeConfig.File(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            control = try container.decodeIfPresent(String.self, forKey: .control)
            host = try container.decodeIfPresent(String.self, forKey: .host)
        }

        public func encode(to encoder: any Encoder) throws {
            try config.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(control, forKey: .control)
            try container.encodeIfPresent(host, forKey: .host)
        }

        public var id: String { config.id }
    }

    public init(name: String, coordinator: Coordinator, settings: Settings? = nil, security: Security? = nil, nodes: [Node]) {
        self.name = name
        self.coordinator = coordinator
        self.settings = settings
        self.security = security
        self.nodes = nodes
    }

    /// An HA topology: several coordinators on one etcd cluster.
    public init(name: String, etcd: Etcd, coordinators: [Coordinator], settings: Settings? = nil, security: Security? = nil,
                nodes: [Node]) {
        self.init(name: name, coordinator: coordinators.first ?? Coordinator(commands: "", events: ""), settings: settings,
                  security: security, nodes: nodes)
        self.etcd = etcd
        self.coordinators = coordinators
    }

    enum CodingKeys: String, CodingKey { case name, coordinator, coordinators, etcd, settings, security, nodes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let single = try container.decodeIfPresent(Coordinator.self, forKey: .coordinator)
        coordinators = try container.decodeIfPresent([Coordinator].self, forKey: .coordinators)
        etcd = try container.decodeIfPresent(Etcd.self, forKey: .etcd)
        settings = try container.decodeIfPresent(Settings.self, forKey: .settings)
        security = try container.decodeIfPresent(Security.self, forKey: .security)
        nodes = try container.decodeIfPresent([Node].self, forKey: .nodes) ?? []
        switch (single, coordinators) {
        case (let single?, nil): coordinator = single
        case (nil, let list?) where !list.isEmpty: coordinator = list[0]
        case (_?, _?): throw TopologyError(message: "give either coordinator: (one) or coordinators: (HA, with etcd:), not both")
        default: throw TopologyError(message: "no coordinator: give coordinator: (one) or coordinators: (HA, with etcd:)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if let coordinators { try container.encode(coordinators, forKey: .coordinators) } else { try container.encode(coordinator, forKey: .coordinator) }
        try container.encodeIfPresent(etcd, forKey: .etcd)
        try container.encodeIfPresent(settings, forKey: .settings)
        try container.encodeIfPresent(security, forKey: .security)
        try container.encode(nodes, forKey: .nodes)
    }

    /// HA mode (an `etcd:` section): coordinators elect a leader on etcd and keep the log there.
    public var isHighAvailability: Bool { etcd != nil }

    /// Every coordinator: the HA list, or the single one.
    public var allCoordinators: [Coordinator] { coordinators ?? [coordinator] }

    /// The process name of a coordinator: its `name` in HA mode, `coordinator` otherwise.
    public func processName(_ coordinator: Coordinator) -> String {
        isHighAvailability ? coordinator.name ?? "coordinator" : "coordinator"
    }

    /// The process names of the coordinators, and of the etcd members `cluster up` starts.
    public var coordinatorProcessNames: [String] { allCoordinators.map(processName) }
    public var etcdMemberNames: [String] { (0..<(etcd?.members ?? 0)).map { "etcd-\($0)" } }

    /// The etcd user of coordinator `processName` (its client certificate's common name): the
    /// cluster's name and its own, so that every coordinator can be retired alone.
    public func etcdUser(_ processName: String) -> String { EtcdCertificates.user(cluster: name, client: processName) }
    /// The etcd role of this cluster's coordinators: read and write under its prefix, nothing else.
    public var etcdRole: String { "camsync-\(name)" }

    /// Parses and validates a topology (every node config must be valid, ids unique).
    public init(yaml: String) throws {
        do {
            self = try YAMLDecoder().decode(Topology.self, from: yaml)
        } catch let error as DecodingError {
            throw TopologyError(message: "\(error)")
        }
        try validate()
    }

    public init(path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw TopologyError(message: "cannot read topology \(path): \(error.localizedDescription)")
        }
        do {
            try self.init(yaml: text)
        } catch let error as TopologyError {
            throw TopologyError(message: "\(path): \(error.message)")
        }
    }

    public func validate() throws {
        try validateHighAvailability()
        var seen = Set(coordinatorProcessNames + etcdMemberNames)
        for node in nodes {
            guard seen.insert(node.id).inserted else {
                throw TopologyError(message: "node id '\(node.id)' appears twice (or names a coordinator or an etcd member)")
            }
            do {
                _ = try NodeConfig(file: node.config)
            } catch {
                throw TopologyError(message: "node '\(node.id)': \(error)")
            }
        }
        for node in nodes {
            if let device = node.config.display?.attachedTo, !nodes.contains(where: { $0.id == device && $0.config.kind == "device" }) {
                throw TopologyError(message: "display '\(node.id)' is attached to '\(device)', which is not a device of this topology")
            }
        }
    }

    private func validateHighAvailability() throws {
        guard let etcd else {
            if coordinators != nil { throw TopologyError(message: "coordinators: (several) needs an etcd: section (HA mode)") }
            return
        }
        guard let coordinators, !coordinators.isEmpty else {
            throw TopologyError(message: "etcd: needs a coordinators: list, each with a name")
        }
        switch (etcd.members, etcd.endpoints) {
        case (let members?, nil):
            guard members >= 1, members <= 9 else { throw TopologyError(message: "etcd.members must be 1…9 (3 or 5 in practice), not \(members)") }
            if let hosts = etcd.memberHosts, hosts.count != members {
                throw TopologyError(message: "etcd.memberHosts has \(hosts.count) entries for \(members) members")
            }
        case (nil, let endpoints?):
            guard !endpoints.isEmpty else { throw TopologyError(message: "etcd.endpoints is empty") }
            for endpoint in endpoints {
                do { _ = try EtcdEndpoint(parsing: endpoint) } catch {
                    throw TopologyError(message: "etcd.endpoints: \(error)")
                }
            }
            guard etcd.memberHosts == nil else { throw TopologyError(message: "etcd.memberHosts goes with members:, not endpoints:") }
        default:
            throw TopologyError(message: "etcd: give either members: N (started by cluster up) or endpoints: [...] (an existing cluster)")
        }
        if let lease = etcd.leaseSeconds, lease < 1 { throw TopologyError(message: "etcd.leaseSeconds must be at least 1") }
        var names = Set<String>()
        for coordinator in coordinators {
            guard let name = coordinator.name, !name.isEmpty else { throw TopologyError(message: "every coordinator of coordinators: needs a name") }
            guard names.insert(name).inserted else { throw TopologyError(message: "coordinator name '\(name)' appears twice") }
            guard coordinator.dataDir == nil else {
                throw TopologyError(message: "coordinator '\(name)': no dataDir in HA mode (the command log lives on etcd)")
            }
            guard !name.hasPrefix("etcd-") else { throw TopologyError(message: "coordinator name '\(name)': etcd-N names the etcd members") }
        }
    }

    /// The YAML of one node's config file.
    public func nodeConfigYAML(_ node: Node) throws -> String {
        try YAMLEncoder().encode(node.config)
    }
}

extension Topology {
    /// One coordinator on ipc sockets in `runDirectory` (`commands.sock`, `events.sock`) and `nodes`,
    /// validated: the small local clusters the demo and the flood start.
    public init(name: String, runDirectory: String, settings: Settings? = nil, nodes: [Node]) throws {
        self.init(name: name, coordinator: Coordinator(commands: "ipc://\(runDirectory)/commands.sock",
                                                      events: "ipc://\(runDirectory)/events.sock"),
                  settings: settings, nodes: nodes)
        try validate()
    }
}

extension Topology.Node {
    /// A node from the YAML of its config file (the same fields as a node config file).
    public init(yaml: String) throws {
        self.init(config: try NodeConfig.parseFile(yaml: yaml))
    }
}

public struct TopologyError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
