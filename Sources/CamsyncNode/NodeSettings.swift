public import CamsyncConfig
import CamsyncRuntime

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

    /// Every coordinator's command endpoint: the DEALER follows one of them at a time (K6).
    public var coordinatorCommandEndpoints: [String] { Self.endpoints(in: coordinatorCommandEndpoint) }
    /// Every coordinator's event endpoint: the SUB connects to all of them (it fans in).
    public var coordinatorEventEndpoints: [String] { Self.endpoints(in: coordinatorEventEndpoint) }

    /// The entries of a list (`EndpointList`); a list with none is the setting as given (a list of one).
    static func endpoints(in list: String) -> [String] {
        let entries = EndpointList.entries(in: list)
        return entries.isEmpty ? [list] : entries
    }
}

/// CURVE keys for a node: its own pair and the coordinator's public key.
/// They secure the DEALER and the SUB. The control socket never uses CURVE: it is plaintext, so bind it to a
/// local endpoint (an ipc path or loopback) that only this host's users can reach; whoever reaches it acts as this node.
public struct NodeSecurity: Sendable {
    public var publicKey: String
    public var secretKey: String
    public var coordinatorPublicKey: String

    public init(publicKey: String, secretKey: String, coordinatorPublicKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
        self.coordinatorPublicKey = coordinatorPublicKey
    }
}
