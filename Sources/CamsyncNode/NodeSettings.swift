public import CamsyncConfig
public import CamsyncRuntime
public import CamsyncWire

/// Everything a node process needs to run (docs/OPERATIONS.md lists the defaults).
public struct NodeSettings: Sendable {
    public var config: NodeConfig
    /// The coordinator's ROUTER and PUB endpoints. With several coordinators (SPEC K6) each is a
    /// comma-separated list (`coordinatorCommandEndpoints`, `coordinatorEventEndpoints`).
    public var coordinatorCommandEndpoint: String
    public var coordinatorEventEndpoint: String
    /// Where `camsync ctl` reaches this node (ROUTER): an `ipc://` path or `tcp://127.0.0.1:port`.
    public var controlEndpoint: String
    /// K1: heartbeat interval and liveness count (the coordinator is declared silent after interval × liveness).
    public var heartbeatIntervalMilliseconds: Int64
    public var liveness: Int64
    /// A request without a reply after this long is resent with the same request id (K5).
    public var requestRetryMilliseconds: Int64
    /// After this many sends a request fails back to its caller.
    public var requestAttempts: Int
    /// How many app-facing events and fence decisions the node keeps for `ctl` queries.
    public var historyLimit: Int
    public var security: NodeSecurity?
    /// Where to append the node's history (fence decisions, app events) as JSON lines; nil = none.
    public var historyPath: String?
    /// A bug planted for the simulator's oracle to catch (`PlantedBug`); nil everywhere else.
    public var plantedBug: PlantedBug?

    public init(config: NodeConfig, coordinatorCommandEndpoint: String, coordinatorEventEndpoint: String,
                controlEndpoint: String, heartbeatIntervalMilliseconds: Int64 = 500, liveness: Int64 = 3,
                requestRetryMilliseconds: Int64 = 1000, requestAttempts: Int = 10, historyLimit: Int = 10_000,
                security: NodeSecurity? = nil, historyPath: String? = nil) {
        self.historyPath = historyPath
        self.config = config
        self.coordinatorCommandEndpoint = coordinatorCommandEndpoint
        self.coordinatorEventEndpoint = coordinatorEventEndpoint
        self.controlEndpoint = controlEndpoint
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.liveness = liveness
        self.requestRetryMilliseconds = requestRetryMilliseconds
        self.requestAttempts = requestAttempts
        self.historyLimit = historyLimit
        self.security = security
    }

    /// Every coordinator's command endpoint: the node keeps a connection to each and sends to one of
    /// them at a time (K6). With CURVE, only those of a coordinator it believes (`untrustedEndpoints`
    /// lists the others).
    public var coordinatorCommandEndpoints: [String] {
        Self.endpoints(in: coordinatorCommandEndpoint).filter { security?.coordinators.key(forCommandEndpoint: $0) != nil || security == nil }
    }
    /// Every coordinator's event endpoint, as given (with CURVE, only those of a coordinator it
    /// believes): checked against the keys, never connected to (the node's feed comes on its command
    /// connections, docs/PROTOCOL.md "The feed").
    public var coordinatorEventEndpoints: [String] {
        Self.endpoints(in: coordinatorEventEndpoint).filter { security?.coordinators.key(forEventEndpoint: $0) != nil || security == nil }
    }
    /// Endpoints of the lists that no believed coordinator serves: never connected (a coordinator
    /// removed from the trusted list, whose endpoints were left in `--coordinator`/`--events`).
    public var untrustedEndpoints: [String] {
        guard let trusted = security?.coordinators else { return [] }
        return Self.endpoints(in: coordinatorCommandEndpoint).filter { trusted.key(forCommandEndpoint: $0) == nil }
            + Self.endpoints(in: coordinatorEventEndpoint).filter { trusted.key(forEventEndpoint: $0) == nil }
    }

    /// The entries of a list (`EndpointList`); a list with none is the setting as given (a list of one).
    static func endpoints(in list: String) -> [String] {
        let entries = EndpointList.entries(in: list)
        return entries.isEmpty ? [list] : entries
    }
}

/// CURVE keys for a node: its own pair and the coordinators it believes (a key pair per coordinator,
/// `TrustedCoordinators`; or one key they all share). They secure its connections, each with the key
/// of the coordinator at its endpoint. The control socket never uses CURVE: it
/// is plaintext, so bind it to a local endpoint (an ipc path or loopback) that only this host's users
/// can reach; whoever reaches it acts as this node.
public struct NodeSecurity: Sendable {
    public var publicKey: String
    public var secretKey: String
    public var coordinators: TrustedCoordinators

    public init(publicKey: String, secretKey: String, coordinators: TrustedCoordinators) {
        self.publicKey = publicKey
        self.secretKey = secretKey
        self.coordinators = coordinators
    }

    /// Every coordinator serves with one key pair (an embedded coordinator).
    public init(publicKey: String, secretKey: String, coordinatorPublicKey: String) {
        self.init(publicKey: publicKey, secretKey: secretKey, coordinators: .shared(coordinatorPublicKey))
    }
}
