/// What a node's camera fence decided about one grant or release of a camera system it hosts
/// (C8 at the resource). The engine never produces these; the node's `CameraFence` does, from
/// the engine's `cameraGranted`/`cameraReleased` events or from a snapshot's holders.
public struct FenceDecision: Hashable, Codable, Sendable {
    public enum Kind: Hashable, Codable, Sendable {
        /// The session may capture under this token.
        case allowed
        /// The token is not newer than `highest`, one already seen: the grant is stale and refused.
        case refusedStale(highest: GrantToken)
        /// The session stopped capturing.
        case released
    }

    public var kind: Kind
    public var system: CameraSystemID
    public var app: AppID
    public var token: GrantToken
    /// True when the decision came from adopting a snapshot rather than from an event.
    public var fromSnapshot: Bool

    public init(_ kind: Kind, system: CameraSystemID, app: AppID, token: GrantToken, fromSnapshot: Bool = false) {
        self.kind = kind
        self.system = system
        self.app = app
        self.token = token
        self.fromSnapshot = fromSnapshot
    }
}

/// One fence decision as recorded: which node took it, after which coordinator sequence and at
/// which wall-clock time. The one shape of a fence decision everywhere: the node's fence log and
/// history file, the control socket's status (mapped in CamsyncWire), and the soak history and
/// its checker.
public struct FenceRecord: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The node whose fence decided (normally `decision.system.host`).
    public var node: NodeID
    public var decision: FenceDecision
    /// The coordinator sequence the node's replica was at.
    public var sequence: UInt64
    /// Wall-clock time (milliseconds since 1970) of the decision.
    public var at: Instant

    public init(node: NodeID, decision: FenceDecision, sequence: UInt64, at: Instant) {
        self.node = node
        self.decision = decision
        self.sequence = sequence
        self.at = at
    }

    /// The node's log line: `fence allow system=ipad-1/builtin app=ipad-1/com.example.call token=3 seq=42`.
    public var description: String {
        let d = decision
        let source = d.fromSnapshot ? " source=snapshot" : ""
        switch d.kind {
        case .allowed: return "fence allow system=\(d.system) app=\(d.app) token=\(d.token.value) seq=\(sequence)\(source)"
        case .refusedStale(let highest):
            return "fence refuse system=\(d.system) app=\(d.app) token=\(d.token.value) highest=\(highest.value) seq=\(sequence)\(source)"
        case .released: return "fence release system=\(d.system) app=\(d.app) token=\(d.token.value) seq=\(sequence)\(source)"
        }
    }
}
