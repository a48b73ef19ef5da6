public import CamsyncPolicy

/// What the HA soak's nemesis saw around one cut of links in the network-namespace lab (SPEC K6),
/// judged by `HistoryChecker`'s `leadershipUnderPartitions`: a leader cut from etcd stops leading
/// within its lease, a later term acknowledges soon after, and the cluster converges after the heal.
public struct PartitionObservation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The kind of cut (`leader from etcd`, `etcd minority with the leader`, …).
    public var kind: String
    /// What was cut, as the nemesis logged it.
    public var cut: String
    /// The leader when the cut began, and its term.
    public var leader: String
    public var term: UInt64
    /// Whether the cut takes etcd's majority from the leader: then it must stop leading within its
    /// lease, and another coordinator must lead and acknowledge.
    public var deposes: Bool
    public var leaseMilliseconds: Int64
    public var cutAt: Instant
    /// The first instant the cut leader answered as a standby (NOT_LEADER) after the cut; nil: not
    /// while the cut lasted. A leader with a write to etcd hanging answers nothing until it stops
    /// leading (replies wait for their turn's commit), so this is when it stopped.
    public var stoppedLeadingAt: Instant?
    /// The first acknowledgement of a later term after the cut, healed or not (nil: none within
    /// `HistoryChecker.laterTermAckMilliseconds` of the cut).
    public var laterTermAckAt: Instant?
    public var healedAt: Instant
    /// When every replica had caught up with the leader after the heal (nil: not within the bound).
    public var convergedAt: Instant?

    public init(kind: String, cut: String, leader: String, term: UInt64, deposes: Bool, leaseMilliseconds: Int64,
                cutAt: Instant, stoppedLeadingAt: Instant?, laterTermAckAt: Instant?, healedAt: Instant, convergedAt: Instant?) {
        self.kind = kind
        self.cut = cut
        self.leader = leader
        self.term = term
        self.deposes = deposes
        self.leaseMilliseconds = leaseMilliseconds
        self.cutAt = cutAt
        self.stoppedLeadingAt = stoppedLeadingAt
        self.laterTermAckAt = laterTermAckAt
        self.healedAt = healedAt
        self.convergedAt = convergedAt
    }

    public var description: String {
        "\(kind) (\(cut)) at \(cutAt.milliseconds)ms, leader \(leader) term \(term), healed after "
            + "\(healedAt.milliseconds - cutAt.milliseconds) ms"
    }
}

extension HistoryChecker {
    /// How long after its lease may have run out a cut-off leader may still be leading: the tick that
    /// notices, and the nemesis's probe (one every 100 ms, each waiting up to 300 ms).
    public static let leaseSlackMilliseconds: Int64 = 500
    /// How soon after a heal every replica must have caught up.
    public static let convergenceAfterHealMilliseconds: Int64 = 20_000
    /// How soon after a cut that takes etcd from the leader a later term must acknowledge: the lease
    /// (2 s), etcd's own election among the members left (the soak saw 6 s, in split votes), a
    /// campaign and the catch-up read.
    public static let laterTermAckMilliseconds: Int64 = 15_000

    /// K6 under partitions: a leader cut from etcd's majority stops leading within its lease (its
    /// last renewal was sent before the cut, so its lease ends at most a TTL after it); a later term
    /// acknowledges within `laterTermAckMilliseconds` of the cut; every replica catches up after each heal.
    static func leadershipUnderPartitions(_ partitions: [PartitionObservation]) -> CheckResult {
        var findings = Findings(.leadershipUnderPartitions)
        for (index, partition) in partitions.enumerated() {
            let describe = { slice(partitions, around: index) }
            let stopped = partition.stoppedLeadingAt ?? partition.healedAt
            if partition.deposes, stopped.milliseconds - partition.cutAt.milliseconds > partition.leaseMilliseconds + leaseSlackMilliseconds {
                findings.add("\(partition.leader) still led term \(partition.term) "
                             + "\(partition.stoppedLeadingAt == nil ? "until the heal, " : "")\(stopped.milliseconds - partition.cutAt.milliseconds) ms "
                             + "after \(partition.kind) cut it off; its lease is \(partition.leaseMilliseconds) ms", slice: describe())
            }
            if partition.deposes,
               partition.laterTermAckAt.map({ $0.milliseconds - partition.cutAt.milliseconds > laterTermAckMilliseconds }) ?? true {
                findings.add("no later term than \(partition.term) acknowledged anything within \(laterTermAckMilliseconds) ms of "
                             + "\(partition.kind) cutting \(partition.leader) off (healed after "
                             + "\(partition.healedAt.milliseconds - partition.cutAt.milliseconds) ms)", slice: describe())
            }
            if partition.convergedAt == nil {
                findings.add("the replicas had not converged \(convergenceAfterHealMilliseconds) ms after \(partition.kind) healed",
                             slice: describe())
            }
        }
        return findings.result(examined: partitions.count)
    }
}
