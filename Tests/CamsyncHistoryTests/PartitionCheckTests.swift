import CamsyncHistory
import CamsyncPolicy
import Testing

/// K6 under the HA soak's cuts: a leader cut from etcd stops leading within its lease, a later term
/// acknowledges soon after, every replica catches up after the heal.
@Suite struct PartitionCheckTests {
    static func cut(deposes: Bool = true, stoppedAfter: Int64? = 1_800, laterAckAfter: Int64? = 3_000,
                    convergedAfterHeal: Int64? = 40) -> PartitionObservation {
        let cutAt: Int64 = 10_000, healedAt: Int64 = 17_000
        return PartitionObservation(
            kind: "leader from etcd", cut: "c1 ↔ etcd-0", leader: "c1", term: 5, deposes: deposes, leaseMilliseconds: 2_000,
            cutAt: Instant(milliseconds: cutAt), stoppedLeadingAt: stoppedAfter.map { Instant(milliseconds: cutAt + $0) },
            laterTermAckAt: laterAckAfter.map { Instant(milliseconds: cutAt + $0) }, healedAt: Instant(milliseconds: healedAt),
            convergedAt: convergedAfterHeal.map { Instant(milliseconds: healedAt + $0) })
    }

    static func check(_ partitions: [PartitionObservation]) -> CheckResult? {
        HistoryChecker.check(History(final: FinalState(coordinatorState: ClusterState(), coordinatorSequence: 0, journal: [],
                                                       replicas: []), partitions: partitions),
                             settings: PolicySettings()).result(.leadershipUnderPartitions)
    }

    @Test("a leader that stops within its lease, a later term that acknowledges, replicas that converge: passes")
    func healthy() {
        let result = Self.check([Self.cut(), Self.cut(deposes: false, stoppedAfter: nil, laterAckAfter: nil)])
        #expect(result?.passed == true && result?.examined == 2)
    }

    @Test("each broken rule is a violation", arguments: [
        (cut(stoppedAfter: 2_600), "still led term 5 2600 ms"),
        (cut(stoppedAfter: nil), "still led term 5 until the heal"),
        (cut(laterAckAfter: nil), "no later term than 5 acknowledged"),
        (cut(laterAckAfter: 15_001), "no later term than 5 acknowledged"),
        (cut(deposes: false, stoppedAfter: nil, laterAckAfter: nil, convergedAfterHeal: nil), "had not converged"),
    ])
    func violations(_ partition: PartitionObservation, _ message: String) {
        let result = Self.check([partition])
        #expect(result?.violationCount == 1)
        #expect(result?.violations.first?.message.contains(message) == true, "\(result?.violations ?? [])")
    }
}
