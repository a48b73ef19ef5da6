import CamsyncPolicy
import CamsyncWire

/// The states a `NodeSession` moves through, each holding its own data.
extension NodeSession {

    /// Where this node stands in the cluster (K2).
    public enum Membership: Sendable, Equatable {
        /// Its registration is out (or about to be): nothing else is asked in its name yet.
        case joining
        /// Registered. `attachAsked`: a display's configured attach is done or asked for in this
        /// join (again once its device rejoins).
        case registered(attachAsked: Bool)
    }

    /// Whether the coordinator followed has been heard within the liveness timeout (K1, K7).
    public enum CoordinatorContact: Sendable, Equatable {
        case heard
        /// Silent longer than the timeout: the next reconnect is due at `nextReconnect`, after a
        /// back-off of `delay` (doubling up to 8 s).
        case silent(nextReconnect: Int64, delay: Int64)
    }

    /// The node's feed since its connection to the followed coordinator was (re)opened: a snapshot
    /// is asked once something was pushed on it (the leader knows the connection: what it pushes
    /// after the snapshot comes behind it, on the same connection).
    public enum Subscription: Sendable, Equatable {
        case opening
        case live
    }

    /// How the replica gets what the live stream alone cannot give it.
    public enum CatchUp: Sendable, Equatable {
        /// Nothing asked: the stream continues the replica.
        case none
        /// A snapshot is wanted, asked for as soon as the subscription is live.
        case snapshotWanted
        /// A snapshot request is out; its answer replaces the replica.
        case snapshotRequested
        /// A replay of the log after a gap is out (`NodeSession+Replay.swift`); the live batches
        /// heard meanwhile wait in `held`, applied after the replay's.
        case replaying(held: [PublishedBatch])
    }

    public var registered: Bool {
        if case .registered = membership { true } else { false }
    }
    var attachRequested: Bool { membership == .registered(attachAsked: true) }
    var coordinatorSilent: Bool { contact != .heard }
    public var isCoordinatorReachable: Bool { contact == .heard }
    var subscriptionLive: Bool { subscription == .live }
    var snapshotWanted: Bool { catchUp == .snapshotWanted }
    var snapshotRequested: Bool { catchUp == .snapshotRequested }
    /// The back-off before the next reconnect (the heartbeat interval while the coordinator is heard).
    var reconnectDelay: Int64 {
        if case .silent(_, let delay) = contact { delay } else { settings.heartbeatIntervalMilliseconds }
    }
    var replayRequested: Bool {
        if case .replaying = catchUp { true } else { false }
    }
}
