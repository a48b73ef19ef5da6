import CamsyncClient
import CamsyncEtcd
import CamsyncPolicy
import Foundation
import Testing
import ZeroMQ
@testable import camsync

/// `ctl status` ends with one Coordinators section, the same for an embedded cluster and an HA one.
@Suite struct CoordinatorSectionTests {
    static let counters = [["commands accepted", "12"], ["commands refused", "1"]]

    static func coordinator(_ name: String, role: String, answered: Bool = true) -> HighAvailabilityReport.Coordinator {
        .init(name: name, endpoint: "tcp://127.0.0.1:1\(name.count)", role: role, term: answered ? 3 : 0, appliedSequence: answered ? 12 : 0,
              lag: answered ? 0 : nil, answeredInMilliseconds: answered ? 1 : nil, error: answered ? nil : "timed out")
    }

    @Test("embedded: the coordinator's row and its counters under one Coordinators heading, no empty section")
    func embedded() throws {
        var report = StatusReport(state: try StatusReportTests.state(), sequence: 12, term: 3)
        report.counters = Self.counters
        report.highAvailability = HighAvailabilityReport(leader: "coordinator", coordinators: [Self.coordinator("coordinator", role: "leading")],
                                                         etcd: [])
        let text = CtlStatusCommand.render(report)
        #expect(!text.contains("\nCoordinator\n"), "no second, singular section:\n\(text)")
        #expect(text.components(separatedBy: "\nCoordinators\n").count == 2, "one Coordinators section:\n\(text)")
        let section = try #require(text.components(separatedBy: "\nCoordinators\n").last)
        #expect(section.contains("coordinator  tcp://"), "the coordinator's own row:\n\(section)")
        #expect(section.contains("COUNTER (coordinator)") && section.range(of: "commands accepted +12\n", options: .regularExpression) != nil, "its counters:\n\(section)")
        #expect(!section.contains("etcd"), "no etcd table for an embedded coordinator")
    }

    @Test("HA: every coordinator, the leader's counters, then the etcd members")
    func highAvailability() throws {
        var report = StatusReport(state: try StatusReportTests.state(), sequence: 12, term: 3)
        report.counters = Self.counters
        report.highAvailability = HighAvailabilityReport(
            leader: "c2", coordinators: [Self.coordinator("c1", role: "unreachable", answered: false), Self.coordinator("c2", role: "leading"),
                                         Self.coordinator("c3", role: "standby")],
            etcd: [EtcdMemberStatus(endpoint: "127.0.0.1:2379", memberID: "e99a2b50fcdcfe5e", isLeader: true, raftTerm: 2, raftIndex: 19,
                                    raftAppliedIndex: 19, databaseSizeBytes: 20_480, version: "3.4.23", reachable: true)])
        let text = CtlStatusCommand.render(report)
        #expect(text.components(separatedBy: "\nCoordinators\n").count == 2 && !text.contains("\nCoordinator\n"), "\(text)")
        #expect(text.contains("COUNTER (c2)"), "the leader's counters:\n\(text)")
        let coordinators = try #require(text.range(of: "\nCoordinators\n")), etcd = try #require(text.range(of: "\netcd\n"))
        #expect(coordinators.upperBound < etcd.lowerBound, "etcd last")
    }

    @Test("a coordinator that does not answer is listed by the name its endpoint has, not by the endpoint")
    func unreachableByName() throws {
        let endpoint = "ipc://\(NSTemporaryDirectory())camsync-nobody-\(UUID().uuidString.prefix(8)).sock"   // nothing listens there
        let report = HighAvailabilityReport.gather(context: try ZMQContext(), endpoints: [endpoint], names: [endpoint: "c1"], curve: nil,
                                                   timeoutMilliseconds: 200)
        #expect(report.coordinators.map(\.name) == ["c1"])
        #expect(report.coordinators.first?.role == "unreachable" && report.coordinators.first?.endpoint == endpoint)
        #expect(report.coordinatorRows.first?.prefix(3) == ["c1", endpoint, "unreachable"])
    }
}
