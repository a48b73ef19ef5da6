import CamsyncEtcd
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// `coordinator_status_request` (SPEC K6, `ctl status`'s HA section): every coordinator answers with
/// its own view, whatever its role, and the answer changes nothing.
@Suite struct CoordinatorStatusTests {
    typealias R = CoordinatorReceiveTests
    typealias L = CoordinatorLeadershipTests

    static let request = Envelope(sender: "admin", requestID: 9, body: .coordinatorStatusRequest(Camsync_V1_CoordinatorStatusRequest()))

    static func status(_ core: inout CoordinatorCore, at time: Int64) throws -> Camsync_V1_CoordinatorStatus {
        let actions = core.receiveTurn(R.frame(request), at: R.at(time))
        #expect(!actions.contains { if case .commit = $0 { true } else { false } }, "a status request is not a command")
        let reply = try #require(R.replies(actions).first)
        #expect(reply.requestID == 9)
        guard case .coordinatorStatus(let status)? = reply.body else {
            Issue.record("not a coordinator status: \(reply)")
            throw CancellationError()
        }
        return status
    }

    @Test("a standby says it is one, with its applied sequence and the leader it knows")
    func standby() throws {
        var core = L.standby(log: L.leaderBatches(3))
        let status = try Self.status(&core, at: 5)
        #expect(status.role == "standby")
        #expect(status.coordinator == L.ownAddress)
        #expect(status.appliedSequence == 3)
        #expect(status.leader == L.leaderAddress)
        #expect(core.sequence == 3 && core.counters.commandsRefused == 0, "answered, not refused")
    }

    @Test("the leader says it leads, in its term, and names no other leader")
    func leader() throws {
        var core = L.standby(log: L.leaderBatches(2))
        _ = L.lead(&core, term: 50)
        let status = try Self.status(&core, at: 20)
        #expect(status.role == "leading")
        #expect(status.term == 50)
        #expect(status.appliedSequence == core.sequence)
        #expect(!status.hasLeader)
    }

    @Test("an embedded coordinator leads and uses no etcd")
    func embedded() throws {
        var core = R.core()
        let status = try Self.status(&core, at: 1)
        #expect(status.role == "leading" && status.etcdEndpoints.isEmpty && !status.hasCoordinator)
    }
}
