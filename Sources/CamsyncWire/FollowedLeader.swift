/// Which coordinator a node or client follows (SPEC K6, K7): the one rule, in one place, for the
/// node (`NodeSession`), the CLI (`LeaderFollowing`) and the bench's simulated nodes. The C display
/// agent has the same rule in `agent/src/leader.c`; one table of cases
/// (`Tests/Fixtures/leader-following.tsv`) drives the tests of both.
///
/// K7: a coordinator named leader (by its own heartbeat, or by a standby's NOT_LEADER) is followed
/// only in a term higher than the one followed (the highest term known), or in the same term if it
/// is not the one just left because it fell silent. A named leader's own heartbeat is that
/// coordinator speaking again, so it is no longer silent: it is followed (else a node partitioned
/// from a leader that keeps its term would never come back to it).
///
/// Pure: no clock, no socket. The caller reports what it heard and carries out the decision.
public struct FollowedLeader: Sendable, Equatable {
    /// A coordinator as followed: its command endpoint and a term (0 when not known).
    public struct Coordinator: Sendable, Equatable, CustomStringConvertible {
        public var commandEndpoint: String
        public var term: UInt64

        public init(commandEndpoint: String, term: UInt64) {
            self.commandEndpoint = commandEndpoint
            self.term = term
        }

        public var description: String { "\(commandEndpoint)@\(term)" }
    }

    /// Who names a leader.
    public enum Source: String, Sendable, Equatable, CaseIterable {
        /// The leader itself: its heartbeat (only leaders publish). It is not silent.
        case itself
        /// Another coordinator: a standby's (or a deposed leader's) NOT_LEADER answer. Hearsay.
        case another
    }

    /// What to do about a leader named.
    public enum Decision: Sendable, Equatable {
        /// Follow it: a coordinator other than the one followed. Pending requests go there at once, with their ids (K5).
        case follow
        /// It is the coordinator followed already: only its term was noted.
        case sameCoordinator
        /// Not followed.
        case ignored(Ignored)
    }

    public enum Ignored: String, Sendable, Equatable {
        /// The address names no command endpoint.
        case noEndpoint
        /// Its term is lower than one already known: a stale view (K6).
        case lowerTerm
        /// The same term, naming the coordinator just left because it fell silent (K7).
        case leftForSilence
    }

    /// The command endpoints to try in turn while the followed coordinator is silent (never empty).
    public let endpoints: [String]
    /// The coordinator followed: the leader as named, or an endpoint of the list tried while the
    /// followed one was silent (term 0).
    public private(set) var followed: Coordinator
    /// The highest coordinator term heard (heartbeats, batches, a leader's replies): anything under
    /// a lower one is ignored (K6).
    public private(set) var highestTerm: UInt64 = 0
    /// The coordinator just left because it fell silent, with the term known when it was left; nil
    /// once a higher term is known or it speaks again itself.
    public private(set) var leftForSilence: Coordinator?
    /// When it was left (the caller's monotonic ms), if the caller keeps time (`fellSilent(at:)`).
    public private(set) var leftAt: Int64?

    /// Follows the first endpoint of `endpoints`, in no known term.
    public init(endpoints: [String]) {
        precondition(!endpoints.isEmpty, "no coordinator endpoint")
        self.endpoints = endpoints
        followed = Coordinator(commandEndpoint: endpoints[0], term: 0)
    }

    /// True when `term` is lower than one already known: what comes under it is from a deposed leader.
    public func isStale(term: UInt64) -> Bool { term < highestTerm }

    /// A term seen on a heartbeat, a batch or a leader's reply (never a NOT_LEADER's envelope term).
    /// Returns true when it is higher than any heard; the memory of the coordinator left for silence
    /// lapses once the term heard is higher than the one it was left in.
    @discardableResult
    public mutating func noteTerm(_ term: UInt64) -> Bool {
        guard term > highestTerm else { return false }
        highestTerm = term
        if let left = leftForSilence, term > left.term { leftForSilence = nil }
        return true
    }

    /// The term followed: the highest term heard, or the term the followed coordinator was named
    /// leader in if that is higher (a NOT_LEADER may name a leader in a term not heard yet).
    public var termFollowed: UInt64 { max(highestTerm, followed.term) }

    /// A coordinator named leader, at `commandEndpoint` in `term`, by itself or another: follow it
    /// or not (K7). The term named is not a term heard: whoever hears the leader calls `noteTerm`.
    /// `now` (the caller's monotonic ms, with `fellSilent(at:)`): a client that hears no heartbeats
    /// lets the memory of the one left for silence lapse after `hearsayMemoryMilliseconds`.
    public mutating func named(commandEndpoint: String, term: UInt64, by source: Source, at now: Int64? = nil) -> Decision {
        if let now, let leftAt, leftForSilence != nil, now - leftAt >= Self.hearsayMemoryMilliseconds {
            leftForSilence = nil
            self.leftAt = nil
        }
        guard !commandEndpoint.isEmpty else { return .ignored(.noEndpoint) }
        guard term >= termFollowed else { return .ignored(.lowerTerm) }
        if let left = leftForSilence {
            if left.commandEndpoint == commandEndpoint, left.term == term {
                // Hearsay names the dead leader in the term it died in; its own heartbeat proves it speaks.
                guard source == .itself else { return .ignored(.leftForSilence) }
                leftForSilence = nil
            } else if term > left.term {
                leftForSilence = nil
            }
        }
        guard commandEndpoint != followed.commandEndpoint else {
            followed.term = term
            return .sameCoordinator
        }
        followed = Coordinator(commandEndpoint: commandEndpoint, term: term)
        return .follow
    }

    /// The coordinator followed fell silent: remember it (in the term known now) and move to the
    /// next endpoint of the list. Returns false with a list of one, which stays where it is.
    @discardableResult
    public mutating func fellSilent(at now: Int64? = nil) -> Bool {
        guard endpoints.count > 1 else { return false }
        leftAt = now
        leftForSilence = Coordinator(commandEndpoint: followed.commandEndpoint, term: termFollowed)
        followed = Coordinator(commandEndpoint: next(after: followed.commandEndpoint, skipping: nil), term: 0)
        return true
    }

    /// The coordinator followed answers but leads not and names no leader to follow (a client that
    /// does not wait for the next heartbeat): move to the next endpoint of the list, past the one
    /// left for silence. Returns false with a list of one.
    @discardableResult
    public mutating func tryNext() -> Bool {
        guard endpoints.count > 1 else { return false }
        followed = Coordinator(commandEndpoint: next(after: followed.commandEndpoint,
                                                     skipping: leftForSilence?.commandEndpoint), term: 0)
        return true
    }

    /// How long a client that hears no heartbeats keeps ignoring hearsay about the coordinator it
    /// left for silence: long enough for a dead leader's lease to expire on etcd (its TTL, 2 s by
    /// default, and etcd's 500 ms lessor tick) and for the standbys to see it. A standby that still
    /// names it in the same term after that shows it lives (its lease is renewed). Nodes hear
    /// heartbeats, which end the memory at once, and need no such lapse. (Found by `camsync sim`:
    /// a client that left a live leader over a lost reply never went back to it.)
    public static let hearsayMemoryMilliseconds: Int64 = 5_000


    /// The endpoint after `endpoint` in the list (the first when it is not in the list), past `skipped`
    /// unless that is the only other choice.
    private func next(after endpoint: String, skipping skipped: String?) -> String {
        let start = endpoints.firstIndex(of: endpoint).map { $0 + 1 } ?? 0
        let candidates = (0..<endpoints.count).map { endpoints[(start + $0) % endpoints.count] }
        return candidates.first { $0 != endpoint && $0 != skipped } ?? candidates.first { $0 != endpoint } ?? endpoints[0]
    }
}
