public import CamsyncWire

/// CURVE settings for a client socket: the client's own pair, and the coordinators it believes
/// (`TrustedCoordinators`: a key pair per coordinator, or one key they share). A socket connects to
/// each endpoint with the key of the coordinator there; an endpoint no believed coordinator serves
/// is not connected (`ClientError.untrusted`).
public struct ClientCurve: Sendable {
    public var publicKey: String
    public var secretKey: String
    public var coordinators: TrustedCoordinators
    /// Keys of believed coordinators named (by a NOT_LEADER) at endpoints the list does not hold.
    var namedKeys: [String: String] = [:]

    public init(publicKey: String, secretKey: String, coordinators: TrustedCoordinators) {
        self.publicKey = publicKey
        self.secretKey = secretKey
        self.coordinators = coordinators
    }

    /// Every coordinator serves with `serverPublicKey` (an embedded coordinator).
    public init(publicKey: String, secretKey: String, serverPublicKey: String) {
        self.init(publicKey: publicKey, secretKey: secretKey, coordinators: .shared(serverPublicKey))
    }

    public func serverKey(forCommandEndpoint endpoint: String) -> String? {
        namedKeys[endpoint] ?? coordinators.key(forCommandEndpoint: endpoint)
    }

    public func serverKey(forEventEndpoint endpoint: String) -> String? { coordinators.key(forEventEndpoint: endpoint) }

    /// Whether the coordinator `address` names is believed; if so, `endpoint` (where this client
    /// reaches it) is connected to with its key from now on.
    mutating func believes(_ address: Camsync_V1_CoordinatorAddress, reachedAt endpoint: String) -> Bool {
        guard let key = coordinators.key(for: address) else { return false }
        namedKeys[endpoint] = key
        return true
    }
}
