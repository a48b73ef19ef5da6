import CamsyncPolicy
import Foundation
import CamsyncWire
import CamsyncCoordinatorCore

/// Which topics of the event socket a subscriber may read (docs/PROTOCOL.md "Topics" and
/// "Authorisation"): under CURVE a node's key reads its own feed (`EventTopic.node`) and the
/// heartbeats (`hb`), nothing else — not `all`, not another node's feed, not a prefix of several; an
/// admin's or a coordinator's key reads every topic. Without keys (lab mode) nothing is checked.
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
        if topic == Self.heartbeat { return .admit }
        if nodes.contains(where: { Array(EventTopic.node(NodeID($0)).utf8) == topic }) { return .admit }
        let shown = String(decoding: topic.prefix(64), as: UTF8.self).replacingOccurrences(of: "\u{0}", with: "\\0")
        return .refuse("node '\(nodes[0])' may subscribe to its own feed and 'hb' only, not '\(shown)'")
    }

    private static let heartbeat = Array(EventTopic.heartbeat.utf8)
}
