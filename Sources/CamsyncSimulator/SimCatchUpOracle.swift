import CamsyncNode

/// A node syncs within `syncBound` once nothing disturbs it: a replica that waits for a snapshot that
/// long while neither it, nor the coordinator it follows, nor the leader, nor the store, nor the
/// whole network was disturbed meanwhile, has stopped asking. And what catching up costs is bounded: a node sends at most `catchUpsPerSecond` registrations,
/// snapshot requests and replay requests in any second of simulated time. Each fault costs a few;
/// a node that asks again at every reply (a replay or snapshot storm) fails the seed, and the run
/// stops there: a storm would otherwise run on to the end at a reply's round trip.
extension Simulation {

    static let catchUpsPerSecond = 40

    /// Twenty heartbeat intervals.
    var syncBound: Int64 { 20 * options.heartbeatMilliseconds * 1000 }

    func checkSynced(_ n: Int) {
        guard let session = nodes[n].session, session.replica.phase != .synced else {
            nodes[n].unsyncedSince = nil
            return
        }
        guard let since = nodes[n].unsyncedSince else {
            nodes[n].unsyncedSince = now
            return
        }
        guard now - since > syncBound else { return }
        // What could keep it from its snapshot: itself, the store, the whole network, and the
        // coordinators it deals with (the one it follows, whoever leads now, and those it left).
        let involved = Set([nodes[n].target] + coordinators.indices.filter { coordinators[$0].core?.role.isLeading == true })
        let disturbed = ([disturbedUntil[.node(n)], disturbedUntil[.store], everyoneDisturbedUntil, nodes[n].leftDisturbedUntil]
            + involved.flatMap { [disturbedUntil[.coordinator($0)], stalledUntil[$0]] }).compactMap { $0 }.max() ?? 0
        guard disturbed < now - syncBound, nodes[n].startedAt < now - syncBound else { return }
        violation("\(nodes[n].config.id) has waited \((now - since) / 1000) ms for a snapshot, undisturbed for "
                  + "\(syncBound / 1000) ms: it stopped asking")
        nodes[n].unsyncedSince = now
    }

    func catchUpRequested(_ n: Int, _ metric: NodeMetric) {
        let second = now / 1_000_000
        if nodes[n].catchUps.second != second { nodes[n].catchUps = (second, 0) }
        nodes[n].catchUps.count += 1
        guard nodes[n].catchUps.count > Self.catchUpsPerSecond else { return }
        violation("\(nodes[n].config.id) asked to catch up more than \(Self.catchUpsPerSecond) times within a second "
                  + "(the last: \(metric)): a storm of registrations, snapshots or replays")
        finished = true
    }
}
