import CamsyncWire

/// SPEC K6 on the node side: several coordinators, at most one leader. The SUB hears them all; the
/// DEALER follows one: the leader as the coordinators name it (a heartbeat's `coordinator`, a
/// NOT_LEADER's `leader`), never guessed, or, while every coordinator is silent, the next endpoint
/// of the list. Nothing under a term lower than one already seen is accepted.
extension NodeSession {

    /// The coordinator the DEALER talks to: its command endpoint, and the term it was named leader
    /// in (0 when not known: the first endpoint of the list, or one tried while all were silent).
    struct FollowedCoordinator: Sendable, Equatable {
        var commandEndpoint: String
        var term: UInt64
    }

    /// True, counted and logged, when a coordinator speaks under a term lower than one this node has
    /// seen: a deposed leader's batches, heartbeats and answers are not taken.
    mutating func isStale(term: UInt64, _ what: String) -> Bool {
        guard term < knownTerm else { return false }
        emit(.count(.staleTermIgnored))
        log(.debug, "ignored: lower coordinator term", ["what": "\(what)", "term": "\(term)", "knownTerm": "\(knownTerm)"])
        return true
    }

    /// A coordinator names the leader: follow it when it leads in a term at least as high as any
    /// seen and is not the coordinator followed already. Pending requests go to it at once with
    /// their ids (K5: the leader's retry window is replicated, so a request the old leader committed
    /// gets its original answer). The term itself is noted by whoever calls (`noteTerm`).
    mutating func follow(_ leader: Camsync_V1_CoordinatorAddress, namedBy source: String) {
        guard !leader.commandEndpoint.isEmpty, leader.term >= knownTerm, leader.term >= followed.term else { return }
        guard leader.commandEndpoint != followed.commandEndpoint else {
            followed.term = leader.term
            return
        }
        followed = FollowedCoordinator(commandEndpoint: leader.commandEndpoint, term: leader.term)
        emit(.count(.leaderFollowed))
        log(.info, "following the leader", [
            "leader": "\(leader.name)", "endpoint": "\(leader.commandEndpoint)", "term": "\(leader.term)", "namedBy": "\(source)",
        ])
        reconnect(subscriber: false)
    }

    /// A NOT_LEADER answer: nothing was applied. The request stays pending (a control client hears
    /// of it only if it finally gives up, with this message); it goes to the leader at once if the
    /// answer names one, else it waits for its next retry.
    mutating func notLeader(_ error: Camsync_V1_Error, requestID: UInt64) {
        pending[requestID]?.notLeader = error.message
        log(.info, "not the leader", ["endpoint": "\(followed.commandEndpoint)", "message": "\(error.message)"])
        if error.hasLeader { follow(error.leader, namedBy: "not-leader reply") }
    }

    /// Every coordinator is silent and the followed one may be dead: the next reconnect tries the
    /// next command endpoint of the list (a list of one stays where it is). Its heartbeats or its
    /// NOT_LEADER answers then name the leader.
    mutating func tryNextCoordinator() {
        let endpoints = settings.coordinatorCommandEndpoints
        guard endpoints.count > 1 else { return }
        let next = endpoints.firstIndex(of: followed.commandEndpoint).map { ($0 + 1) % endpoints.count } ?? 0
        followed = FollowedCoordinator(commandEndpoint: endpoints[next], term: 0)
    }
}
