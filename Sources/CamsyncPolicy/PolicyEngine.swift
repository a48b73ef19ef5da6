/// The coordinator's brain: a value that applies commands at a given time and
/// returns the ordered events they cause, or a rejection (state unchanged).
/// No I/O, no clock, no randomness.
public struct PolicyEngine: Hashable, Sendable {
    public private(set) var state: ClusterState
    public let settings: PolicySettings

    public init(settings: PolicySettings = PolicySettings(), state: ClusterState = ClusterState()) {
        self.settings = settings
        self.state = state
    }
}
