import CamsyncWire

/// A monitor of the cluster, as a dashboard or a status script: once a second it asks the
/// coordinator it follows for the whole state (a snapshot, as the admin) and follows a NOT_LEADER to
/// the leader it names, or the next coordinator after a second without an answer. The observers
/// (`--observers`) start together and ask on the same second, as scrapes do, so that a leader meets
/// them all in one turn: the whole state's snapshot is its largest reply (megabytes at ten thousand
/// nodes), and what it costs a turn decides whether the pulse leaves in time.
struct SimObserver {
    let index: Int
    var leader: FollowedLeader
    var requestID: UInt64 = 0
    var awaiting = false

    var id: String { "observer-\(index + 1)" }

    /// Once a second.
    static let period: Int64 = 1_000_000

    init(index: Int, coordinators: Int) {
        self.index = index
        leader = FollowedLeader(endpoints: (0..<coordinators).map(SimTopology.commandEndpoint))
    }
}

extension Simulation {
    static let largestRefusal = 4096

    func observerWakes(_ o: Int) {
        scheduler.schedule(.observerWake(o), at: now + SimObserver.period)
        if observers[o].awaiting { _ = observers[o].leader.fellSilent(at: nowMilliseconds) }
        observers[o].requestID += 1
        observers[o].awaiting = true
        let request = Envelope.snapshotRequest(sender: Envelope.adminSender, requestID: observers[o].requestID).serializedBytes()
        let c = SimTopology.coordinator(endpoint: observers[o].leader.followed.commandEndpoint) ?? 0
        for at in network.deliveries(from: .observer(o), to: .coordinator(c), at: now, rng: &rng) {
            scheduler.schedule(.coordinatorFrame(c, generation: coordinators[c].generation, routingID: Array(observers[o].id.utf8),
                                                 bytes: request), at: at)
        }
    }

    func observerReceives(_ o: Int, _ bytes: [UInt8]) {
        // The whole state's snapshot is not decoded (megabytes, dozens of observers each second, in
        // the simulator's one thread): that it came is what the observer needs. What can send it
        // elsewhere, a NOT_LEADER, is a few hundred bytes.
        guard bytes.count < Self.largestRefusal else {
            observers[o].awaiting = false
            return
        }
        guard let reply = try? Envelope.decode(bytes), reply.requestID == observers[o].requestID else { return }
        observers[o].awaiting = false
        guard case .error(let error)? = reply.body, error.code == .notLeader else { return }
        let decision = error.hasLeader
            ? observers[o].leader.named(commandEndpoint: error.leader.commandEndpoint, term: error.leader.term, by: .another,
                                        at: nowMilliseconds)
            : .ignored(.noEndpoint)
        if case .ignored = decision { _ = observers[o].leader.tryNext() }
    }
}
