public import CamsyncPolicy

/// C8 at the resource: for each camera system this node hosts, the highest grant token
/// it has seen and the one session allowed to capture under it. An older token is refused.
public struct CameraFence: Sendable {
    public struct Holder: Sendable, Equatable {
        public var app: AppID
        public var token: GrantToken
    }

    /// What happened to a grant the node was told about.
    public enum Decision: Sendable, Equatable {
        case allowed(AppID, GrantToken)
        /// The token is not newer than one already seen: the grant is stale and refused.
        case refusedStale(AppID, token: GrantToken, highest: GrantToken)
        case released(AppID, GrantToken)
        case ignored
    }

    public let host: NodeID
    public private(set) var highest: [CameraSystemID: GrantToken] = [:]
    public private(set) var capturing: [CameraSystemID: Holder] = [:]

    public init(host: NodeID) {
        self.host = host
    }

    /// Feeds one event; only grants and releases of systems hosted here matter.
    public mutating func observe(_ event: Event) -> Decision {
        switch event {
        case .cameraGranted(let system, let app, let token) where system.host == host:
            if let seen = highest[system], token <= seen {
                return .refusedStale(app, token: token, highest: seen)
            }
            highest[system] = token
            capturing[system] = Holder(app: app, token: token)
            return .allowed(app, token)
        case .cameraReleased(let system, let app) where system.host == host:
            guard let holder = capturing[system], holder.app == app else { return .ignored }
            capturing[system] = nil
            return .released(app, holder.token)
        default:
            return .ignored
        }
    }

    /// After a snapshot: the holders the coordinator's state names, fenced by the tokens seen.
    /// Returns the decisions that changed who may capture.
    public mutating func adopt(_ state: ClusterState) -> [Decision] {
        var decisions: [Decision] = []
        for (id, system) in state.cameraSystems.sorted(by: { $0.key < $1.key }) where id.host == host {
            let seen = highest[id] ?? GrantToken(0)
            if system.lastToken > seen { highest[id] = system.lastToken }
            let current = capturing[id]
            if let app = system.holder, system.lastToken >= seen {
                let holder = Holder(app: app, token: system.lastToken)
                if current != holder {
                    if let current { decisions.append(.released(current.app, current.token)) }
                    capturing[id] = holder
                    decisions.append(.allowed(app, system.lastToken))
                }
            } else if system.holder == nil, let current {
                capturing[id] = nil
                decisions.append(.released(current.app, current.token))
            }
        }
        return decisions
    }
}
