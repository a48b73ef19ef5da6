import CamsyncClient
import CamsyncPolicy
import CamsyncProcessLab
import CamsyncWire
import Foundation
import Testing

/// Partial replicas across real processes under CURVE (docs/PROTOCOL.md "Following one group"): each
/// node holds its device group's part of the state, fed by its own topic; a display moved to another
/// device follows the new group on the same feed and keeps nothing of the old one.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct GroupReplicaTests {
    /// The node's replica is exactly the coordinator's state projected on `group`, as of the group's last batch.
    static func holdsGroup(_ cluster: LocalCluster, _ node: String, _ group: NodeID) throws -> Bool {
        let coordinator = try cluster.coordinatorState()
        let status = try cluster.status(node)
        return try status.group == group.rawValue && status.caughtUp(with: coordinator) && status.replicaAgrees(with: coordinator.state)
    }

    @Test("a display moved from ipad-1 to ipad-2 holds ipad-2's group with every batch of it, and nothing of ipad-1's")
    func displayMovesBetweenGroups() async throws {
        try await withCluster(curve: true) { cluster in
            try cluster.waitUntil(timeout: 10, what: "display-1 to attach to ipad-1 and hold its group") {
                try Self.holdsGroup(cluster, "display-1", "ipad-1")
            }
            try cluster.act("ipad-1", [.openFullScreen(Apps.scanner1, trigger: .user)])
            try cluster.act("ipad-2", [.openFullScreen(Apps.notes2, trigger: .user)])
            try cluster.waitUntil(timeout: 10, what: "display-1 to hold ipad-1's app") {
                try Self.holdsGroup(cluster, "display-1", "ipad-1")
                    && cluster.status("display-1").replica.apps.contains { $0.id.device == "ipad-1" }
            }
            #expect(try !cluster.status("display-1").replica.apps.contains { $0.id.device == "ipad-2" }, "nothing of ipad-2 yet")

            // An admin moves it (the display itself may attach only to the device its configuration names).
            let admin = try cluster.coordinatorClient()
            defer { admin.close() }
            _ = try admin.send(.attachDisplay(display: "display-1", device: "ipad-2"))
            // Batches of both groups right after the move: the new group's must all reach the display.
            try cluster.act("ipad-2", [.sendToBackground(Apps.notes2, cause: .homeGesture), .openFullScreen(Apps.call2, trigger: .user)])
            try cluster.act("ipad-1", [.sendToBackground(Apps.scanner1, cause: .homeGesture)])
            try cluster.waitUntil(timeout: 10, what: "display-1 to hold ipad-2's group as of its last batch") {
                try Self.holdsGroup(cluster, "display-1", "ipad-2")
            }
            let replica = try cluster.status("display-1").replica
            #expect(Set(replica.nodes.map(\.id)) == ["display-1", "ipad-2"])
            #expect(!replica.apps.isEmpty && replica.apps.allSatisfy { $0.id.device == "ipad-2" }, "nothing of ipad-1's apps is kept")
            try cluster.waitUntil(timeout: 10, what: "ipad-1 to hold its group without the display") {
                try Self.holdsGroup(cluster, "ipad-1", "ipad-1")
            }
            let ipad1 = try cluster.status("ipad-1").replica
            #expect(Set(ipad1.nodes.map(\.id)) == ["ipad-1"], "the display left ipad-1's group")
            #expect(ipad1.apps.allSatisfy { $0.id.device == "ipad-1" })
        }
    }
}
