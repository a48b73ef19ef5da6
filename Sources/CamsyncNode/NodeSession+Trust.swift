import CamsyncWire
import Logging

/// Which coordinators a node believes: each coordinator has a CURVE key pair of its own, and a node believes
/// only the coordinators its `TrustedCoordinators` lists. The sockets carry keys (each connection is
/// made with the server key of the coordinator at its endpoint, so CURVE proves who answers); what a
/// frame *says* about coordinators is decided here: a heartbeat or a NOT_LEADER naming a coordinator
/// whose key is not trusted is not believed — not followed, its term not taken, not a sign of life —
/// and the node keeps following the leader it believes. Without CURVE (lab mode) everyone is believed.
extension NodeSession {

    /// The server key for the coordinator the node follows (nil without CURVE).
    public var followedServerKey: String? { serverKey(forCommandEndpoint: followed.commandEndpoint) }

    /// The key of the coordinator at `endpoint`: the one a believed address named there, else the
    /// one listed for it (or the shared key).
    public func serverKey(forCommandEndpoint endpoint: String) -> String? {
        guard let trusted = settings.security?.coordinators else { return nil }
        return namedKeys[endpoint] ?? trusted.key(forCommandEndpoint: endpoint)
    }

    /// Whether this node believes the coordinator `address` names (in a heartbeat: itself; in a
    /// NOT_LEADER: the leader). A believed one's key is remembered for its command endpoint, so the
    /// node connects there with it; one not believed is counted and logged, and nothing else
    /// happens.
    mutating func believes(_ address: Camsync_V1_CoordinatorAddress, _ what: String) -> Bool {
        guard let trusted = settings.security?.coordinators else { return true }
        guard let key = trusted.key(for: address) else {
            emit(.count(.untrustedCoordinatorIgnored))
            log(.warning, "ignored: a coordinator whose key this node does not trust", [
                "what": "\(what)", "coordinator": "\(address.name)", "endpoint": "\(address.commandEndpoint)",
                "term": "\(address.term)", "key": "\(address.publicKey.isEmpty ? "none" : String(address.publicKey.prefix(8)) + "…")",
            ])
            return false
        }
        namedKeys[address.commandEndpoint] = key
        return true
    }
}
