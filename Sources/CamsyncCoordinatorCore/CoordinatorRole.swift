public import CamsyncEtcdModel
public import CamsyncWire

/// Which part a coordinator plays (SPEC K6), without the data of its phase: what status, metrics,
/// logs and tests look at. An embedded coordinator always leads. In HA, etcd decides who may lead,
/// and the core moves through these phases (`HighAvailability.Phase` holds each one's data;
/// docs/DEVELOPING.md "Leadership"):
///
///     rebuilding ──(snapshot + log read)──▶ standby ──(won)──▶ catchingUp ──(log's tail read)──▶ leading
///          ▲                                   │                                                 │
///          └──── gap in the log, step-down ◀───┴────── lease lost or expired, commit refused ◀───┘
public enum CoordinatorRole: Sendable, Equatable, CustomStringConvertible {
    /// The state must be read from etcd (snapshot + log) before anything else: at start, after a
    /// gap in the watched log, and after every step-down (the engine may hold an uncommitted turn).
    case rebuilding
    /// Applying the leader's log as it appears on etcd; answering NOT_LEADER.
    case standby
    /// Won `leadership`; reading what the log holds after this core's sequence before deciding.
    case catchingUp(EtcdLeadership)
    /// Deciding. `leadership` is the etcd leadership every write is conditional on; nil for an
    /// embedded coordinator (its journal is its own).
    case leading(EtcdLeadership?)

    /// As logs and status lines say it.
    public var description: String {
        switch self {
        case .rebuilding: "rebuilding from etcd"
        case .standby: "standby"
        case .catchingUp(let leadership): "catching up to lead in term \(leadership.term)"
        case .leading(let leadership?): "leading in term \(leadership.term)"
        case .leading(nil): "leading"
        }
    }

    public var isLeading: Bool {
        if case .leading = self { true } else { false }
    }

    /// The etcd leadership held or being taken up, if any.
    public var leadership: EtcdLeadership? {
        switch self {
        case .catchingUp(let leadership): leadership
        case .leading(let leadership): leadership
        case .rebuilding, .standby: nil
        }
    }
}
