import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import Testing

/// `/metrics` scraped from a real coordinator and node (`--http`) after a known story.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct MetricsTests {
    @Test("/metrics counts the story's commands, refusals, claims and the cluster's gauges; unknown paths are 404")
    func metricsAfterAStory() async throws {
        let coordinatorHTTP = "127.0.0.1:\(TestTopology.freeTCPPort())"
        let nodeHTTP = "127.0.0.1:\(TestTopology.freeTCPPort())"
        try await withCluster(prepare: { cluster in
            cluster.coordinatorArguments = ["--http", coordinatorHTTP]
            cluster.nodeArguments["ipad-1"] = ["--http", nodeHTTP]
        }) { cluster in
            try cluster.waitForAgreement()
            let before = try HTTPScrape.metrics(coordinatorHTTP)
            #expect(before["camsync_nodes_alive"] == 3)

            // Seven accepted commands and one refused (a PiP stash for an app that has no PiP).
            try cluster.startPiPVideoCall(then: [.openFullScreen(Apps.camera1, trigger: .user)])
            #expect(throws: (any Error).self) { try cluster.act("ipad-1", [.stashPiP(Apps.notes1)]) }
            try cluster.act("ipad-1", [.terminate(Apps.camera1)])
            try cluster.waitForAgreement()

            var after = try HTTPScrape.metrics(coordinatorHTTP)
            try cluster.waitUntil(timeout: 10, what: "the web follower to reach the coordinator's sequence") {
                after = try HTTPScrape.metrics(coordinatorHTTP)
                return after["camsync_web_follower_sequence"] == Double(try cluster.coordinatorState().sequence)
            }
            #expect(after["camsync_commands_accepted_total"]! - before["camsync_commands_accepted_total"]! == 7)
            #expect(after.sum("camsync_commands_refused_total") - before.sum("camsync_commands_refused_total") == 1)
            #expect(after.sum("camsync_bad_frames_total") == 0)
            // The call's startSession was granted at once (0 ms); Camera.app's grant needs no claim of its own.
            #expect(after["camsync_camera_wait_seconds_count"] == 1)
            #expect(after["camsync_camera_wait_seconds_bucket{le=\"0.0\"}"] == 1)
            #expect(after["camsync_snapshots_served_total"]! >= 4, "three nodes and the web follower took a snapshot")
            #expect(after["camsync_group_commit_entries_count"]! >= 1)
            // Every group commit is one timed write to the journal (the story's turns and the registrations').
            #expect(after["camsync_log_write_seconds_count"] == after["camsync_group_commit_entries_count"])
            #expect(after["camsync_log_write_seconds_sum"]! > 0)
            #expect(after["camsync_nodes_alive"] == 3)
            // A single coordinator is a healthy leader, not a cluster without one.
            #expect(after["camsync_coordinator_leading"] == 1)
            #expect(after["camsync_coordinator_term"] == Double(try cluster.coordinatorState().term))
            #expect(after["camsync_nodes_dead"] == 0)
            #expect(after["camsync_camera_systems_held"] == 1, "the call holds ipad-1's cameras again")
            #expect(after["camsync_sessions{state=\"running\",reason=\"\"}"] == 1)
            #expect(after["camsync_sessions{state=\"interrupted\",reason=\"3\"}"] == 0, "the call was interrupted (3), and resumed")

            let node = try HTTPScrape.metrics(nodeHTTP)
            #expect(node["camsync_node_snapshot_requests_total"]! >= 1)
            #expect(node["camsync_node_fence_refusals_total"] == 0)
            #expect(node["camsync_node_replica_lag_sequences"] == 0)
            #expect(node["camsync_commands_accepted_total"] == nil, "a node exports only its own metrics")

            for (address, path) in [(coordinatorHTTP, "/nope"), (nodeHTTP, "/"), (nodeHTTP, "/events"), (coordinatorHTTP, "/metrics/x")] {
                #expect(try HTTPScrape.get("http://\(address)\(path)").status == 404, "\(path) on \(address)")
            }
        }
    }

    @Test("under CURVE the web follower has its own in-process key: gauges and the page follow the cluster")
    func curveFollower() async throws {
        let coordinatorHTTP = "127.0.0.1:\(TestTopology.freeTCPPort())"
        try await withCluster(curve: true, prepare: { cluster in
            cluster.coordinatorArguments = ["--http", coordinatorHTTP]
        }) { cluster in
            try cluster.waitForAgreement()
            try cluster.act("ipad-1", [.openFullScreen(Apps.call1, trigger: .user)])
            try cluster.waitForAgreement()
            let sequence = Double(try cluster.coordinatorState().sequence)
            var metrics = HTTPScrape.Metrics(text: "")
            try cluster.waitUntil(timeout: 10, what: "the web follower to reach the coordinator's sequence under CURVE") {
                metrics = try HTTPScrape.metrics(coordinatorHTTP)
                return metrics["camsync_web_follower_sequence"] == sequence
            }
            #expect(metrics["camsync_nodes_alive"] == 3)
            #expect(metrics.sum("camsync_bad_frames_total") == 0, "the follower's key is admitted, nothing refused")
            let page = try HTTPScrape.get("http://\(coordinatorHTTP)/")
            #expect(page.status == 200)
        }
    }
}
