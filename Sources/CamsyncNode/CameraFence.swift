public import CamsyncPolicy

/// C8 at the resource: for each camera system this node hosts, the highest grant token
/// it has seen and the one session allowed to capture under it. An older token is refused.
public struct CameraFence: Sendable {
    public struct Holder: Sendable, Equatable {
        public var app: AppID
        public var token: GrantToken
    }

    public let host: NodeID
    public private(set) var highest: [CameraSystemID: GrantToken] = [:]
    public private(set) var capturing: [CameraSystemID: Holder] = [:]

    public init(host: NodeID) {
        self.host = host
    }

    /// Feeds one event; only grants and releases of systems hosted here matter (nil otherwise).
    public mutating func observe(_ event: Event) -> FenceDecision? {
        switch event {
        case .cameraGranted(let system, let app, let token) where system.host == host:
            if let seen = highest[system], token <= seen {
                return FenceDecision(.refusedStale(highest: seen), system: system, app: app, token: token)
            }
            highest[system] = token
            capturing[system] = Holder(app: app, token: token)
            return FenceDecision(.allowed, system: system, app: app, token: token)
        case .cameraReleased(let system, let app) where system.host == host:
            guard let holder = capturing[system], holder.app == app else { return nil }
            capturing[system] = nil
            return FenceDecision(.released, system: system, app: app, token: holder.token)
        default:
            return nil
        }
    }

    /// After a snapshot: the holders the coordinator's state names, fenced by the tokens seen.
    /// Returns the decisions that changed who may capture, releases first.
    public mutating func adopt(_ state: ClusterState) -> [FenceDecision] {
        var decisions: [FenceDecision] = []
        for (id, system) in state.cameraSystems.sorted(by: { $0.key < $1.key }) where id.host == host {
            let seen = highest[id] ?? GrantToken(0)
            let current = capturing[id]
            if let app = system.holder, system.lastToken >= seen {
                highest[id] = system.lastToken
                let holder = Holder(app: app, token: system.lastToken)
                if current != holder {
                    if let current {
                        decisions.append(FenceDecision(.released, system: id, app: current.app, token: current.token, fromSnapshot: true))
                    }
                    capturing[id] = holder
                    decisions.append(FenceDecision(.allowed, system: id, app: app, token: system.lastToken, fromSnapshot: true))
                }
            } else if let app = system.holder {
                // The snapshot names a holder under a token older than one seen here: refuse it.
                decisions.append(FenceDecision(.refusedStale(highest: seen), system: id, app: app, token: system.lastToken,
                                                fromSnapshot: true))
            } else {
                if system.lastToken > seen { highest[id] = system.lastToken }
                if let current {
                    capturing[id] = nil
                    decisions.append(FenceDecision(.released, system: id, app: current.app, token: current.token, fromSnapshot: true))
                }
            }
        }
        return decisions
    }
}
