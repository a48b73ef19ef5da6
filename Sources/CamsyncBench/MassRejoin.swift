import CamsyncRuntime
import CamsyncStats
import ZeroMQ

/// `fleet-failover`'s mass rejoin: every node process of a joined fleet restarted at once (a fleet's
/// hosts rebooted, a network blip that reset every connection), while a steady client sends a command
/// every 50 ms to the leader. The leader admits registrations and snapshots in bounded batches a turn
/// and the nodes it turns away back off with jitter, so the rejoin neither deposes the leader (any
/// leadership move fails the run: `UncausedLeadershipMove`) nor stalls the client's acknowledgements.
/// Measured: restart → every node registered, synced and following the leader; the client's command →
/// ack meanwhile.
enum MassRejoin {
    static let rejoinedSeconds = 30.0
    static let ackP99Milliseconds = 50.0

    /// Stops `shards`, starts `restart()`'s in their place, and measures until every node is back.
    /// Returns the rows, the targets and the new shards (the caller stops them).
    static func measure(_ settings: BenchSettings, cluster: HACoordinators, shards: FleetShards, restart: () throws -> FleetShards,
                        nodes: Int, label: String, context: ZMQContext, directory: String) throws
        -> (rows: [BenchRow], checks: [TargetCheck], shards: FleetShards) {
        let leader = try cluster.waitForLeader()
        let endpoints = cluster.coordinators.map(\.commandEndpoint)
        let client = try SteadyClient(context: context, commandEndpoints: endpoints, node: SimulatedNode.id(0), leader: leader,
                                      intervalMilliseconds: 50, curve: cluster.curve)
        var stopped = false
        defer { if !stopped { _ = try? client.stop() } }
        // Steady before: the client's commands answered by the leader.
        let steady = Clock.monotonicNanoseconds() + 1_000_000_000
        while Clock.monotonicNanoseconds() < steady { try shards.pump(milliseconds: 5) }
        settings.progress("fleet-failover: every one of \(nodes) node processes restarted at once")
        let restartedAt = Clock.monotonicNanoseconds()
        client.measure(from: restartedAt)
        shards.stop()
        let fresh = try restart()
        let limit = restartedAt + UInt64(settings.pick(120.0, quick: 60.0) * 1e9)
        var nextLeaderCheck = restartedAt + 1_000_000_000
        while fresh.joined < nodes || fresh.following(endpoints[leader]) < nodes {
            let now = Clock.monotonicNanoseconds()
            guard now < limit else {
                fresh.stop()
                throw BenchError("mass rejoin: \(fresh.joined) of \(nodes) nodes back within \((limit - restartedAt) / 1_000_000_000) s "
                    + "(logs in \(directory))")
            }
            if now >= nextLeaderCheck {
                nextLeaderCheck = now + 1_000_000_000
                do {
                    try cluster.checkLeads(leader, while: "the mass rejoin of \(nodes) nodes, at \(fresh.joined)", directory: directory)
                } catch {
                    fresh.stop()
                    throw error
                }
            }
            try fresh.pump(milliseconds: 5)
        }
        let rejoined = Clock.monotonicNanoseconds()
        stopped = true
        let acks = try client.stop()
        guard acks.count > 0 else { throw BenchError("mass rejoin: the steady client had no command acknowledged while \(nodes) nodes rejoined") }
        let seconds = Double(rejoined - restartedAt) / 1e9
        settings.progress(String(format: "fleet-failover: %d nodes rejoined in %.1f s; the client's ack p99 meanwhile %.1f ms",
                                 nodes, seconds, acks.p99 / 1000))
        let rows = [
            BenchRow(benchmark: "fleet-failover", scenario: "\(label): every node process restarted at once → all rejoined",
                     latency: LatencySummary(microseconds: [seconds * 1e6])),
            BenchRow(benchmark: "fleet-failover", scenario: "\(label): a steady client's command → ack during the mass rejoin",
                     latency: acks),
        ]
        let checks = [
            TargetCheck(figure: "mass rejoin (\(label)): all rejoined", measured: seconds * 1e6, .atMost, rejoinedSeconds * 1e6,
                        unit: .microseconds, basis: "admission in bounded batches, jittered back-off"),
            TargetCheck(figure: "mass rejoin (\(label)): a steady client's ack p99 meanwhile", measured: acks.p99, .atMost,
                        ackP99Milliseconds * 1000, unit: .microseconds, basis: "a rejoin does not stall acknowledgements"),
        ]
        return (rows, checks, fresh)
    }
}
