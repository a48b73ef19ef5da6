public import CamsyncEtcdModel
public import CamsyncWire

/// How a coordinator runs (SPEC K6): alone on its own journal, or as one of several on etcd.
public enum CoordinatorMode: Sendable, Equatable {
    /// One coordinator and its SQLite journal: it always leads, in its journal's term.
    case embedded
    /// One of several coordinators on etcd: where it stands, and what it knows of etcd.
    case highAvailability(HighAvailability)
}

/// An HA coordinator's phase and what it knows about etcd (SPEC K6). Pure data, changed only by the
/// core's leadership events (`CoordinatorCore+Leadership.swift`); each phase holds its own data.
public struct HighAvailability: Sendable, Equatable {

    /// Where an HA coordinator stands; `CoordinatorRole` is its data-free view (docs/DEVELOPING.md
    /// "Leadership" draws the transitions).
    public enum Phase: Sendable, Equatable {
        /// The state must be read from etcd (snapshot + log) before anything else: at start, after a
        /// gap in the watched log, after every step-down. `win`: a win to act on once rebuilt.
        case rebuilding(read: LogRead, win: EtcdLeadership?)
        /// Applying the leader's log as it appears on etcd; answering NOT_LEADER. `win`: a win to
        /// catch up with, whose first read may start at `readDue` (monotonic ms; after a failed read).
        case standby(win: EtcdLeadership?, readDue: Int64)
        /// Won `leadership`; reading what the log holds after this core's sequence before deciding.
        case catchingUp(EtcdLeadership, read: LogRead)
        /// Deciding; every write is conditional on `leadership`. `lastPulse`: when it last published
        /// its pulse (monotonic ms).
        case leading(EtcdLeadership, lastPulse: Int64)

        public var role: CoordinatorRole {
            switch self {
            case .rebuilding: .rebuilding
            case .standby: .standby
            case .catchingUp(let leadership, _): .catchingUp(leadership)
            case .leading(let leadership, _): .leading(leadership)
            }
        }

        /// The win waiting for this coordinator to be ready for it.
        public var pendingWin: EtcdLeadership? {
            switch self {
            case .rebuilding(_, let win), .standby(let win, _): win
            case .catchingUp, .leading: nil
            }
        }
    }

    /// A read of the log that a phase needs: due at a monotonic ms (0: now), or asked of the shell
    /// and not answered yet.
    public enum LogRead: Sendable, Equatable {
        case due(at: Int64)
        case underWay
    }

    public internal(set) var phase: Phase = .rebuilding(read: .due(at: 0), win: nil)
    /// How nodes reach this coordinator (named in its heartbeats when it leads).
    public var address: Camsync_V1_CoordinatorAddress
    /// The leader as etcd shows it (nil: none known, or this coordinator).
    public internal(set) var leader: Camsync_V1_CoordinatorAddress?
    /// Why etcd could not be used lately (said in NOT_LEADER errors while it lasts).
    public internal(set) var trouble: String?
    /// The highest term this coordinator gave up: a win at or below it is stale.
    public internal(set) var resignedTerm: Int64 = 0
    /// What the lease renewals report: the lease and the monotonic ms until which it is known to live.
    public internal(set) var lease: LeaseValidity?
    /// Pause after a failed read: 100 ms, doubling up to 2 s, so that a coordinator cut off from
    /// etcd still answers (NOT_LEADER, saying why) between attempts that each block for up to the
    /// request deadline.
    public internal(set) var retryDelay: Int64 = HighAvailability.firstRetryDelay
    /// The lease behind the observed leader's key: what a standby revokes when it suspects it.
    public internal(set) var leaderLease: Int64 = 0
    /// When (monotonic ms) the observed leader's pulse was last heard in its term (nil: not yet, and
    /// no suspicion without it: a standby that cannot hear the leader at all does not depose it).
    public internal(set) var leaderHeardAt: Int64?
    /// The last sequence a leader's pulse said it had published (any leader's, kept across leader
    /// changes: sequences continue; what the new leader publishes again starts after it).
    public internal(set) var leaderPublishedThrough: UInt64 = 0
    /// The lease this coordinator revoked last (each suspected leader is revoked once).
    public internal(set) var revokedLease: Int64 = 0

    public static let firstRetryDelay: Int64 = 100
    public static let longestRetryDelay: Int64 = 2_000

    public init(address: Camsync_V1_CoordinatorAddress) { self.address = address }

    /// Whether the lease behind `leadership` is known to live at `now`.
    func leaseLives(_ leadership: EtcdLeadership, at now: Int64) -> Bool {
        guard let lease, lease.id == leadership.lease else { return false }
        return now < lease.validUntil
    }

    /// When the read the phase needs may start (nil: none is needed, or one is under way).
    public var readDue: Int64? {
        switch phase {
        case .rebuilding(.due(let at), _), .catchingUp(_, .due(let at)): at
        case .standby(_?, let at): at
        case .rebuilding(.underWay, _), .catchingUp(_, .underWay), .standby(nil, _), .leading: nil
        }
    }

    /// Whether a read asked of the shell has not been answered yet.
    var readUnderWay: Bool {
        switch phase {
        case .rebuilding(.underWay, _), .catchingUp(_, .underWay): true
        default: false
        }
    }
}

/// A lease and the monotonic ms until which it is known to live (renewal sent at t, TTL → t + TTL).
public struct LeaseValidity: Sendable, Equatable {
    public var id: Int64
    public var validUntil: Int64
    public init(id: Int64, validUntil: Int64) {
        self.id = id
        self.validUntil = validUntil
    }
}

/// What the `LeadershipSupervisor` learns from etcd, handed to `CoordinatorCore.observe(_:at:)`.
public enum LeadershipEvent: Sendable, Equatable, CustomStringConvertible {
    /// This coordinator won the election: catch up with the log, then lead in `leadership.term`.
    case won(EtcdLeadership)
    /// The leader as etcd shows it now (nil: none), and the lease behind its key.
    case leaderObserved(Camsync_V1_CoordinatorAddress?, lease: Int64 = 0)
    /// The candidacy's lease `lease` is known to live until `validUntil` (monotonic ms).
    case leaseRenewed(lease: Int64, validUntil: Int64)
    /// The lease is gone (etcd said so, or no renewal succeeded within its TTL).
    case leaseLost(String)
    /// A turn of the leader's log, as the watch delivered it (its batches, each decoded once).
    case logTurn([LoggedBatch])
    /// etcd cannot be reached or has no quorum.
    case storeTrouble(String)

    /// As logs and the simulator's trace say it.
    public var description: String {
        switch self {
        case .won(let leadership): "won the election in term \(leadership.term)"
        case .leaderObserved(let leader?, _): "etcd shows \(leader.name) leading in term \(leader.term)"
        case .leaderObserved(nil, _): "etcd shows no leader"
        case .leaseRenewed(let lease, let validUntil):
            "lease \(String(UInt64(bitPattern: lease), radix: 16)) known to live until \(validUntil) ms"
        case .leaseLost(let reason): "lease lost: \(reason)"
        case .logTurn(let turn): "a log turn through sequence \(turn.last?.batch.sequence ?? 0)"
        case .storeTrouble(let reason): "etcd trouble: \(reason)"
        }
    }
}

/// Why the command log (etcd, or the SQLite journal) did not do what an action asked, as the shell
/// reports it to the core.
public struct StoreFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// etcd refused a write conditional on a leadership this coordinator no longer holds.
        case notLeader
        /// etcd refused a pipelined write that reached it before the turn it follows: nothing was
        /// written, and the leadership holds (the core sends it again).
        case outOfOrder
        /// Anything else: no quorum, unreachable, timed out, a disk error, a corrupt record.
        case unavailable
    }
    public var kind: Kind
    public var description: String
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
