public import CamsyncPolicy

/// C8 at the resource: for each camera system this node hosts, the highest grant token
/// it has seen and the one session allowed to capture under it. An older token is refused.
public struct CameraFence: Sendable {
    public struct Holder: Sendable, Equatable {
        public var app: AppID
        public var token: GrantToken
    }

    /// What the fence decided about one grant or release.
    public struct Decision: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// The session may capture under this token.
            case allowed
            /// The token is not newer than one already seen: the grant is stale and refused.
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

    public let host: NodeID
    public private(set) var highest: [CameraSystemID: GrantToken] = [:]
    public private(set) var capturing: [CameraSystemID: Holder] = [:]

    public init(host: NodeID) {
        self.host = host
    }

    /// Feeds one event; only grants and releases of systems hosted here matter (nil otherwise).
    public mutating func observe(_ event: Event) -> Decision? {
        switch event {
        case .cameraGranted(let system, let app, let token) where system.host == host:
            if let seen = highest[system], token <= seen {
                return Decision(.refusedStale(highest: seen), system: system, app: app, token: token)
            }
            highest[system] = token
            capturing[system] = Holder(app: app, token: token)
            return Decision(.allowed, system: system, app: app, token: token)
        case .cameraReleased(let system, let app) where system.host == host:
            guard let holder = capturing[system], holder.app == app else { return nil }
            capturing[system] = nil
            return Decision(.released, system: system, app: app, token: holder.token)
        default:
            return nil
        }
    }

    /// After a snapshot: the holders the coordinator's state names, fenced by the tokens seen.
    /// Returns the decisions that changed who may capture, releases first.
    public mutating func adopt(_ state: ClusterState) -> [Decision] {
        var decisions: [Decision] = []
        for (id, system) in state.cameraSystems.sorted(by: { $0.key < $1.key }) where id.host == host {
            let seen = highest[id] ?? GrantToken(0)
            let current = capturing[id]
            if let app = system.holder, system.lastToken >= seen {
                highest[id] = system.lastToken
                let holder = Holder(app: app, token: system.lastToken)
                if current != holder {
                    if let current {
                        decisions.append(Decision(.released, system: id, app: current.app, token: current.token, fromSnapshot: true))
                    }
                    capturing[id] = holder
                    decisions.append(Decision(.allowed, system: id, app: app, token: system.lastToken, fromSnapshot: true))
                }
            } else if let app = system.holder {
                // The snapshot names a holder under a token older than one seen here: refuse it.
                decisions.append(Decision(.refusedStale(highest: seen), system: id, app: app, token: system.lastToken,
                                          fromSnapshot: true))
            } else {
                if system.lastToken > seen { highest[id] = system.lastToken }
                if let current {
                    capturing[id] = nil
                    decisions.append(Decision(.released, system: id, app: current.app, token: current.token, fromSnapshot: true))
                }
            }
        }
        return decisions
    }
}
