import CamsyncEtcd
import CamsyncCoordinatorCore

/// What an HA coordinator's loop is given (SPEC K6): the command log on etcd, and the mailbox the
/// `LeadershipSupervisor` posts etcd's news to.
struct HALink: Sendable {
    let log: EtcdCommandLog
    let mailbox: HAMailbox
    /// Revokes an etcd lease (a suspected leader's), off the loop thread; the outcome is only logged:
    /// the core learns what follows from etcd (the observed leader, a win).
    let revoke: @Sendable (Int64) -> Void
}

extension StoreFailure {
    /// How the shell reports an error of the log to the core.
    init(_ error: any Error) {
        guard let etcd = error as? EtcdError else {
            self.init(.unavailable, "\(error)")
            return
        }
        switch etcd.code {
        case .notLeader: self.init(.notLeader, "this coordinator lost its leadership on etcd")
        case .outOfOrder: self.init(.outOfOrder, etcd.message)
        case .noQuorum: self.init(.unavailable, "etcd has no quorum")
        case .unavailable: self.init(.unavailable, "etcd cannot be reached")
        case .timedOut: self.init(.unavailable, "etcd did not answer in time")
        default: self.init(.unavailable, etcd.description)
        }
    }
}
