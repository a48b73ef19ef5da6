import CamsyncPolicy
import CamsyncWire

/// Why a frame's sender was not accepted.
struct AuthenticationRefusal: Error {
    /// `.forbidden`, or `.routingID` when a connection holds a route that is not its key's node.
    var reason = BadFrameReason.forbidden
    var message: String
}

/// Who may speak as whom: CURVE keys bound to node ids, admin keys; lab mode trusts the sender name.
extension CoordinatorCore {

    /// Binds the claimed sender to the CURVE key the ZAP handler admitted, and the connection's
    /// routing id to that key's node. Without keys (lab mode) the sender is trusted and only the
    /// sender name "admin" is an admin. Success carries whether the sender is an admin.
    func authenticate(sender: String, userID: String?, routingID: [UInt8]) -> Result<Bool, AuthenticationRefusal> {
        guard !sender.isEmpty else { return .failure(AuthenticationRefusal(message: "envelope has no sender")) }
        guard sender.utf8.count <= maxIdentifierBytes else {
            return .failure(AuthenticationRefusal(message: "sender is longer than \(maxIdentifierBytes) bytes"))
        }
        guard let security = settings.security else {
            return .success(sender == Envelope.adminSender)
        }
        guard let key = userID else { return .failure(AuthenticationRefusal(message: "no authenticated key on this connection")) }
        if security.adminKeys.contains(key) { return .success(true) }
        guard let node = security.node(forKey: key) else {
            return .failure(AuthenticationRefusal(message: "this key is not bound to any node"))
        }
        guard routingID == Array(node.utf8) else {
            let shown = String(decoding: routingID.prefix(maxIdentifierBytes), as: UTF8.self)
            return .failure(AuthenticationRefusal(reason: .routingID,
                message: "routing id '\(shown)' is not this key's node '\(node)': a node's DEALER must set ZMQ_ROUTING_ID to its node id"))
        }
        guard node == sender else {
            return .failure(AuthenticationRefusal(message: "this key is not bound to node '\(sender)'"))
        }
        return .success(false)
    }
}
