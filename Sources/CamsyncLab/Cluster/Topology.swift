public import CamsyncConfig
import Foundation
import Yams

/// A whole cluster described in one YAML file (docs/OPERATIONS.md "Topology files"):
/// the coordinator, every node (the same fields as a node config file) and the settings.
public struct Topology: Codable, Sendable, Equatable {
    public var name: String
    public var coordinator: Coordinator
    public var settings: Settings?
    public var security: Security?
    public var nodes: [Node]

    public struct Coordinator: Codable, Sendable, Equatable {
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

        public init(commands: String, events: String, dataDir: String? = nil, durability: String? = nil,
                    host: String? = nil, bindCommands: String? = nil, bindEvents: String? = nil) {
            self.commands = commands
            self.events = events
            self.dataDir = dataDir
            self.durability = durability
            self.host = host
            self.bindCommands = bindCommands
            self.bindEvents = bindEvents
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
        var seen = Set<String>()
        for node in nodes {
            guard seen.insert(node.id).inserted else { throw TopologyError(message: "node id '\(node.id)' appears twice") }
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

    /// The YAML of one node's config file.
    public func nodeConfigYAML(_ node: Node) throws -> String {
        try YAMLEncoder().encode(node.config)
    }
}

public struct TopologyError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
