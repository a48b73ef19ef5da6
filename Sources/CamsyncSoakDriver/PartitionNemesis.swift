import CamsyncClient
import CamsyncHistory
import CamsyncPolicy
import CamsyncProcessLab
import CamsyncRuntime
import CamsyncWorkload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The HA soak's cuts of links in the network-namespace lab (SPEC K6): etcd members on hosts 1–3,
/// coordinators on 4–6, nodes after them (`SoakTopology`). Each cut drops packets with nftables in
/// the namespaces it names, is logged with what it cut, lasts a few seconds (past the lease when it
/// takes etcd's majority from the leader), and is healed before the next fault. Meanwhile it
/// watches the cut leader (does it still serve as the leader?) and, after the heal, waits for every
/// replica to catch up: a `PartitionObservation` for the checker.
struct PartitionNemesis {
    let cluster: LocalCluster
    let lab: NetworkLab
    let leaseMilliseconds: Int64
    /// The acknowledgements so far, with their terms (the soak's clients record them).
    let ackTerms: @Sendable () -> [(at: Instant, term: UInt64)]

    enum Kind: CaseIterable {
        case leaderFromEtcd, leaderFromNodes, etcdMinorityWithLeader, etcdMinority, coordinatorFromOneMember,
             nodeFromEveryCoordinator, leaderToEtcdOneWay

        var name: String {
            switch self {
            case .leaderFromEtcd: "leader from etcd"
            case .leaderFromNodes: "leader from its nodes"
            case .etcdMinorityWithLeader: "etcd minority with the leader"
            case .etcdMinority: "etcd minority without the leader"
            case .coordinatorFromOneMember: "a coordinator from one etcd member"
            case .nodeFromEveryCoordinator: "a node from every coordinator"
            case .leaderToEtcdOneWay: "one-way: the leader's packets to etcd"
            }
        }

        /// Whether the cut takes etcd's majority from the leader (it must stop leading within its lease).
        var deposes: Bool { self == .leaderFromEtcd || self == .etcdMinorityWithLeader || self == .leaderToEtcdOneWay }
    }

    /// One packet filter: what `host` sends `peer` is dropped, and unless `oneWay` what it hears from `peer`.
    struct Cut {
        var host: Int
        var peer: Int
        var oneWay = false
    }

    /// The cuts of `kind`, with `leader` the leading coordinator's host and `pick` a random number source.
    static func cuts(_ kind: Kind, leader: Int, pick: (Int) -> Int) -> [Cut] {
        let etcd = SoakTopology.etcdHosts, coordinators = SoakTopology.coordinatorHosts
        let nodes = (0..<(SoakTopology.devices.count + SoakTopology.displays.count)).map {
            SoakTopology.nodeHost($0, highAvailability: true)
        }
        switch kind {
        case .leaderFromEtcd:
            return etcd.map { Cut(host: leader, peer: $0) }
        case .leaderFromNodes:
            return nodes.map { Cut(host: leader, peer: $0) }
        case .etcdMinorityWithLeader:
            let member = etcd[pick(etcd.count)]
            let majority = etcd.filter { $0 != member } + coordinators.filter { $0 != leader } + nodes
            return [leader, member].flatMap { side in majority.map { Cut(host: side, peer: $0) } }
        case .etcdMinority:
            let member = etcd[pick(etcd.count)]
            return (etcd + coordinators + nodes).filter { $0 != member }.map { Cut(host: member, peer: $0) }
        case .coordinatorFromOneMember:
            return [Cut(host: coordinators[pick(coordinators.count)], peer: etcd[pick(etcd.count)])]
        case .nodeFromEveryCoordinator:
            let node = nodes[pick(nodes.count)]
            return coordinators.map { Cut(host: node, peer: $0) }
        case .leaderToEtcdOneWay:
            return etcd.map { Cut(host: leader, peer: $0, oneWay: true) }
        }
    }

    /// The name of what runs on `host`, for the log.
    static func describe(_ host: Int) -> String {
        if let index = SoakTopology.etcdHosts.firstIndex(of: host) { return "etcd-\(index)" }
        if let index = SoakTopology.coordinatorHosts.firstIndex(of: host) { return SoakTopology.coordinatorNames[index] }
        let nodes = SoakTopology.devices + SoakTopology.displays.map(\.id)
        let index = host - SoakTopology.nodeHost(0, highAvailability: true)
        return nodes.indices.contains(index) ? nodes[index] : "h\(host)"
    }

    /// Cuts, holds, heals and watches one fault of `kind`; nil when no leader could be named.
    func run(_ kind: Kind, rng: inout SplitMix64, progress: @Sendable (String) -> Void) -> PartitionObservation? {
        guard let (leaderName, leaderIndex, term) = leader() else { return nil }
        let leaderHost = SoakTopology.coordinatorHosts[leaderIndex]
        let cuts = Self.cuts(kind, leader: leaderHost) { Int(rng.next() % UInt64($0)) }
        let what = cuts.map { "\(Self.describe($0.host)) \($0.oneWay ? "→" : "↔") \(Self.describe($0.peer))" }
            .joined(separator: ", ")
        let holdMilliseconds = kind.deposes ? leaseMilliseconds + 4_000 + Int64(rng.next() % 2_000) : 3_000 + Int64(rng.next() % 2_000)
        progress("fault: cut \(kind.name) (leader \(leaderName), term \(term)) for \(holdMilliseconds) ms: \(what)")
        for cut in cuts { lab.cut(host: cut.host, peer: cut.peer, oneWay: cut.oneWay) }
        // From when every filter is in place: the leader's lease ends at most a TTL after that.
        let cutAt = Instant(milliseconds: Clock.wallMilliseconds())
        var stoppedLeadingAt: Instant?
        let healAt = Clock.wallMilliseconds() + holdMilliseconds
        while Clock.wallMilliseconds() < healAt {
            // Has the cut leader stopped leading? A standby answers NOT_LEADER.
            if kind.deposes, stoppedLeadingAt == nil, answersAsStandby(leaderName) {
                stoppedLeadingAt = Instant(milliseconds: Clock.wallMilliseconds())
            }
            usleep(100_000)
        }
        for host in Set(cuts.map(\.host)) { lab.mend(host: host) }
        let healedAt = Instant(milliseconds: Clock.wallMilliseconds())
        let convergedAt = waitForConvergence()
        let laterTermAckAt = kind.deposes ? waitForLaterTermAck(after: term, since: cutAt) : nil
        progress("healed \(kind.name) after \(healedAt.milliseconds - cutAt.milliseconds) ms; "
                 + (kind.deposes ? stoppedLeadingAt.map { "the cut leader stopped leading \($0.milliseconds - cutAt.milliseconds) ms after the cut; " }
                    ?? "the cut leader led until the heal; " : "")
                 + (convergedAt.map { "converged \($0.milliseconds - healedAt.milliseconds) ms after the heal" } ?? "NOT converged"))
        return PartitionObservation(kind: kind.name, cut: what, leader: leaderName, term: term, deposes: kind.deposes,
                                    leaseMilliseconds: leaseMilliseconds, cutAt: cutAt, stoppedLeadingAt: stoppedLeadingAt,
                                    laterTermAckAt: laterTermAckAt, healedAt: healedAt, convergedAt: convergedAt)
    }

    /// The first acknowledgement of a term later than `term` since `cutAt`, waiting for one up to
    /// `HistoryChecker.laterTermAckMilliseconds` after the cut (the workload goes on); nil if none came.
    private func waitForLaterTermAck(after term: UInt64, since cutAt: Instant) -> Instant? {
        let deadline = cutAt.milliseconds + HistoryChecker.laterTermAckMilliseconds
        while true {
            let first = ackTerms().filter { $0.term > term && $0.at >= cutAt && $0.at.milliseconds <= deadline }.map(\.at).min()
            if first != nil || Clock.wallMilliseconds() > deadline { return first }
            usleep(100_000)
        }
    }

    /// The leading coordinator: its process name, its index among the coordinators, its term.
    private func leader() -> (String, Int, UInt64)? {
        guard let endpoint = try? cluster.leaderCommandEndpoint(),
              let index = cluster.topology.allCoordinators.firstIndex(where: { LocalCluster.localCommands($0) == endpoint }) else {
            return nil
        }
        let name = cluster.topology.processName(cluster.topology.allCoordinators[index])
        guard let term = try? snapshot(of: name).term else { return nil }
        return (name, index, term)
    }

    /// Whether coordinator `name` refuses a snapshot with NOT_LEADER now (within 300 ms).
    private func answersAsStandby(_ name: String) -> Bool {
        do {
            _ = try snapshot(of: name)
            return false
        } catch let error as ClientError {
            return error.refusal?.code == .notLeader
        } catch {
            return false
        }
    }

    private func snapshot(of name: String) throws -> CoordinatorClient.Snapshot {
        let client = try cluster.coordinatorClient(named: name)
        defer { client.close() }
        return try client.snapshot(timeoutMilliseconds: 300)
    }

    /// When every running node's replica had reached what the leader held at the heal (its own
    /// group's part for a display), while the workload goes on; nil if not within the bound.
    private func waitForConvergence() -> Instant? {
        let deadline = Clock.wallMilliseconds() + HistoryChecker.convergenceAfterHealMilliseconds
        var target: CoordinatorClient.Snapshot?
        while Clock.wallMilliseconds() < deadline {
            if let (leader, nodes) = try? cluster.replicas() {
                let reference = target ?? leader
                target = reference
                let caughtUp = nodes.values.allSatisfy { status in
                    status.synced && (status.group.isEmpty ? status.sequence >= reference.sequence
                        : status.groupSequence >= (reference.groupSequences[NodeID(status.group)] ?? 0))
                }
                if caughtUp { return Instant(milliseconds: Clock.wallMilliseconds()) }
            }
            usleep(100_000)
        }
        return nil
    }
}
