import CamsyncPolicy
import Foundation
import CamsyncWire
import CamsyncCoordinatorCore

/// Which topics of the event socket a subscriber may read (docs/PROTOCOL.md "Topics" and
/// "Authorisation"): the event socket is for admin observers and standbys. Under CURVE an admin's or
/// a coordinator's key reads every topic; a node's key reads nothing there — its feed is pushed on its
/// command connection, addressed to its group's nodes alone. Without keys (lab mode) nothing is checked.
/// Pure: the event socket's owner asks it about every subscription message (`EventPublisher`).
struct SubscriptionGate: Sendable {
    /// nil: lab mode.
    let security: CoordinatorSecurity?

    enum Verdict: Equatable {
        case admit
        case refuse(String)
    }

    /// Whether the connection whose ZAP handler admitted `key` may subscribe to `topic`.
    func verdict(topic: [UInt8], key: String?) -> Verdict {
        guard let security else { return .admit }
        guard let key else { return .refuse("no authenticated key on this connection") }
        let nodes = security.nodes(forKey: key)
        guard !nodes.isEmpty else { return .admit }   // an admin's or a coordinator's key
        let shown = String(decoding: topic.prefix(64), as: UTF8.self).replacingOccurrences(of: "\u{0}", with: "\\0")
        return .refuse("node '\(nodes[0])' may not subscribe to '\(shown)': a node's feed comes on its command connection "
                       + "(protocol \(WireProtocol.version)); the event socket is for admin observers")
    }
}
