import CamsyncWire
import Logging

/// SPEC K6, K7 on the node side: several coordinators, at most one leader. The node keeps a
/// connection to each and hears whatever any of them pushes; it sends to one: the leader as the coordinators name it (a heartbeat's `coordinator`, a
/// NOT_LEADER's `leader`), never guessed, or, while every coordinator is silent, the next endpoint
/// of the list. Whether to follow is `FollowedLeader`'s rule (CamsyncWire); this file carries out
/// its decisions: counting, logging, moving its requests to another connection and resending.
extension NodeSession {

    /// True, counted and logged, when a coordinator speaks under a term lower than one this node has
    /// heard: a deposed leader's batches, heartbeats and answers are not taken.
    mutating func isStale(term: UInt64, _ what: String) -> Bool {
        guard leader.isStale(term: term) else { return false }
        emit(.count(.staleTermIgnored))
        log(.debug, "ignored: lower coordinator term", ["what": "\(what)", "term": "\(term)", "knownTerm": "\(knownTerm)"])
        return true
    }

    /// A coordinator names the leader, itself (heartbeat) or another (NOT_LEADER): when K7 says
    /// follow, pending requests go to it at once with their ids (K5: the leader's retry window is
    /// replicated, so a request the old leader committed gets its original answer). The term heard
    /// is noted by whoever calls (`noteTerm`): naming a leader is not hearing it.
    mutating func follow(_ named: Camsync_V1_CoordinatorAddress, namedBy source: FollowedLeader.Source) {
        let decision = leader.named(commandEndpoint: named.commandEndpoint, term: named.term, by: source)
        // Put into words only for a log line: every heartbeat comes here, most name the same coordinator.
        func metadata() -> Logger.Metadata {
            ["leader": "\(named.name)", "endpoint": "\(named.commandEndpoint)", "term": "\(named.term)",
             "namedBy": "\(source == .itself ? "heartbeat" : "not-leader reply")"]
        }
        switch decision {
        case .follow:
            emit(.count(.leaderFollowed))
            log(.info, "following the leader", metadata())
            connect(reopen: false)
        case .ignored(.leftForSilence):
            log(.info, "not following the coordinator left for silence in that term", metadata())
        case .sameCoordinator, .ignored:
            break
        }
    }

    /// A NOT_LEADER answer: nothing was applied. The request stays pending (a control client hears
    /// of it only if it finally gives up, with this message); it goes to the leader at once if the
    /// answer names one K7 lets it follow, else it waits for its next retry.
    mutating func notLeader(_ error: Camsync_V1_Error, requestID: UInt64) {
        pending[requestID]?.notLeader = error.message
        log(.info, "not the leader", ["endpoint": "\(followed.commandEndpoint)", "message": "\(error.message)"])
        if error.hasLeader, believes(error.leader, "not-leader reply") { follow(error.leader, namedBy: .another) }
    }

    /// Every coordinator is silent and the followed one may be dead: the next reconnect tries the
    /// next command endpoint of the list (a list of one stays where it is), and the one left is not
    /// followed back in the same term on hearsay (K7). Its heartbeats or its NOT_LEADER answers then
    /// name the leader.
    mutating func tryNextCoordinator() {
        leader.fellSilent()
    }
}
