public import CamsyncRuntime
public import CamsyncPolicy
public import CamsyncWire

/// Everything a coordinator needs to run. Defaults are the documented ones (docs/OPERATIONS.md).
public struct CoordinatorSettings: Sendable, Equatable {
    /// ROUTER for commands, snapshot requests and node heartbeats.
    public var commandEndpoint: String
    /// PUB for event batches and coordinator heartbeats.
    public var eventEndpoint: String
    /// Where the journal lives (`journal.sqlite`).
    public var dataDirectory: String
    public var durability: JournalDurability
    /// K1: heartbeat interval; a node silent for `heartbeatIntervalMilliseconds × liveness` is declared dead.
    public var heartbeatIntervalMilliseconds: Int64
    public var liveness: Int64
    /// K3: write a state snapshot every this many commands.
    public var snapshotEvery: UInt64
    /// Largest accepted inbound message (ZMQ_MAXMSGSIZE); larger ones disconnect the peer.
    public var maxMessageSize: Int64
    /// Most requests handled per loop turn (one journal transaction covers them: group commit).
    public var batchLimit: Int
    /// The most snapshot requests one turn serves, so that a mass rejoin costs bounded turns; the
    /// rest wait in a backlog of at most `snapshotBacklog` for the turns that follow (served in the
    /// order they came), and beyond it are answered OVERLOADED, to be asked again at the next heartbeat.
    public var snapshotsPerTurn = 64
    public var snapshotBacklog = 20_000
    /// The most new registrations one turn admits, so that a mass rejoin (every node process restarted
    /// at once) costs bounded turns and the leader's heartbeats, pulse and acks go on meanwhile; the
    /// rest are answered OVERLOADED, and their nodes ask again after a back-off of their own
    /// (docs/PROTOCOL.md "Joining"). A retry of an accepted registration is answered whatever the count.
    public var registrationsPerTurn = 64
    /// Most turns in flight to the log at once (a pipelined log: the next turn is gathered, and sent,
    /// while earlier ones are written; replies still leave in commit order). 1: one at a time.
    public var commitsInFlight: Int
    /// K5: how many recent replies are kept for retries.
    public var retryWindow: Int
    public var policy: PolicySettings
    /// CURVE + ZAP, when keys are configured.
    public var security: CoordinatorSecurity?
    /// HA on etcd (SPEC K6) instead of the SQLite journal in `dataDirectory`; nil = embedded.
    public var highAvailability: HighAvailabilitySettings?
    /// The simulator's planted bug, if any (never set by a process).
    public var plantedBug: PlantedBug?

    public init(commandEndpoint: String = "tcp://127.0.0.1:5555", eventEndpoint: String = "tcp://127.0.0.1:5556",
                dataDirectory: String, durability: JournalDurability = .full,
                heartbeatIntervalMilliseconds: Int64 = 500, liveness: Int64 = 3, snapshotEvery: UInt64 = 10_000,
                commitsInFlight: Int = 4, maxMessageSize: Int64 = 1 << 20, batchLimit: Int = 1024, retryWindow: Int = 65_536,
                policy: PolicySettings = PolicySettings(), security: CoordinatorSecurity? = nil) {
        self.commandEndpoint = commandEndpoint
        self.eventEndpoint = eventEndpoint
        self.dataDirectory = dataDirectory
        self.durability = durability
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.liveness = liveness
        self.snapshotEvery = snapshotEvery
        self.maxMessageSize = maxMessageSize
        self.batchLimit = batchLimit
        self.commitsInFlight = max(1, commitsInFlight)
        self.retryWindow = retryWindow
        self.policy = policy
        self.security = security
    }

    public var livenessTimeoutMilliseconds: Int64 { heartbeatIntervalMilliseconds * liveness }

    /// The documented defaults (docs/OPERATIONS.md): what `camsync coordinator` uses for a flag not given.
    public static let defaults = CoordinatorSettings(dataDirectory: "")
}

/// CURVE keys for the coordinator: its own key pair, the public key of every node it admits
/// (bound to the node id), the admin keys that may issue admin commands, and the other coordinators
/// of an HA cluster (each has a key pair of its own; a standby's SUB to the leader's pulse presents
/// its key, so the ZAP handler admits them).
public struct CoordinatorSecurity: Sendable, Equatable {
    public var secretKey: String
    /// The coordinators of the cluster (`--coordinator-keys`); nil: this one alone (embedded, or
    /// coordinators that still share one key pair).
    public var coordinators: TrustedCoordinators?
    /// Node id → that node's CURVE public key (Z85). A node may only speak as the id its key is bound to.
    public var nodeKeys: [String: String] { didSet { nodesByKey = Self.invert(nodeKeys, retiringNodeKeys) } }
    /// Node id → its previous key, still admitted while the node rotates to `nodeKeys`' (a node listed
    /// twice in the node-keys file: the earlier line; docs/OPERATIONS.md "Rotating keys").
    public var retiringNodeKeys: [String: String] = [:] { didSet { nodesByKey = Self.invert(nodeKeys, retiringNodeKeys) } }
    /// Every node key admitted (current and retiring).
    public var admittedNodeKeys: Set<String> { Set(nodeKeys.values).union(retiringNodeKeys.values) }
    /// Public keys allowed to act as admin (force dead, act for any node).
    public var adminKeys: Set<String>
    /// Public key → the node ids bound to it (one, unless a key file lists a key twice).
    private var nodesByKey: [String: [String]]

    public init(secretKey: String, nodeKeys: [String: String], adminKeys: Set<String>, coordinators: TrustedCoordinators? = nil) {
        self.secretKey = secretKey
        self.coordinators = coordinators
        self.nodeKeys = nodeKeys
        self.adminKeys = adminKeys
        nodesByKey = Self.invert(nodeKeys, [:])
    }

    /// The node a public key is bound to (the first in id order if a key is bound to several).
    public func node(forKey key: String) -> String? { nodes(forKey: key).first }

    /// Every node a public key is bound to (none: not a node's key).
    public func nodes(forKey key: String) -> [String] { nodesByKey[key] ?? [] }

    private static func invert(_ keys: [String: String], _ retiring: [String: String]) -> [String: [String]] {
        var nodes: [String: [String]] = [:]
        for (node, key) in keys.sorted(by: { $0.key < $1.key }) { nodes[key, default: []].append(node) }
        for (node, key) in retiring.sorted(by: { $0.key < $1.key }) where nodes[key]?.contains(node) != true {
            nodes[key, default: []].append(node)
        }
        return nodes
    }
}
