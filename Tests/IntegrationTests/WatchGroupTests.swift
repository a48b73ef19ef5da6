import CamsyncPolicy
import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ctl watch --device` follows one device group, filtered from `all` by the groups each batch names
/// (docs/PROTOCOL.md "Device groups"): the device's and its display's batches, not another device's — not even one whose id
/// starts with the same characters (`ipad-1` and `ipad-10`).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct WatchGroupTests {
    static let ipad10 = TestTopology.ipad2.replacingOccurrences(of: "ipad-2", with: "ipad-10")

    @Test("ctl watch --device ipad-1 shows ipad-1's group (a detach of its display too) and nothing of ipad-10")
    func watchFollowsOneGroup() async throws {
        try await withCluster([TestTopology.ipad1, Self.ipad10, TestTopology.display1]) { cluster in
            try cluster.waitUntil(timeout: 10, what: "display-1 to attach to ipad-1") {
                try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
            }
            let output = "\(cluster.runDirectory)/watch.out"
            FileManager.default.createFile(atPath: output, contents: nil)
            let watch = Process()
            watch.executableURL = URL(fileURLWithPath: try camsyncBinary())
            watch.arguments = ["ctl", "watch", "--coordinator", cluster.commandEndpoint, "--events", cluster.eventEndpoint,
                               "--json", "--device", "ipad-1"]
            watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            watch.standardError = FileHandle.nullDevice
            try watch.run()
            defer {
                if watch.isRunning { kill(watch.processIdentifier, SIGKILL) }
                watch.waitUntilExit()
            }
            func shown() -> [[String: Any]] {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            }
            // The watch is subscribed once it shows a batch of ipad-1 acted now.
            try cluster.waitUntil(timeout: 20, what: "ctl watch to show a batch of ipad-1") {
                try cluster.act("ipad-1", [.openFullScreen(Apps.scanner1, trigger: .user)])
                return !shown().isEmpty
            }
            // ipad-10's batch first, then one that goes to ipad-1's group and display-1's own: the PUB
            // delivers in order, so once the second is shown the first would have been too.
            try cluster.act("ipad-10", [.openFullScreen(AppID(device: "ipad-10", bundleID: "com.example.notes"), trigger: .user)])
            try cluster.act("ipad-1", [.detachDisplay(display: "display-1")])
            try cluster.waitUntil(timeout: 10, what: "ctl watch to show the detach") {
                shown().contains { ($0["command"] as? String)?.contains("detach") == true }
            }
            let lines = shown()
            #expect(!lines.contains { ($0["node"] as? String) == "ipad-10" || (($0["command"] as? String) ?? "").contains("ipad-10") },
                    "nothing of ipad-10: \(lines)")
            #expect(lines.allSatisfy { ($0["topic"] as? String) == "ev.ipad-1" }, "every batch on ipad-1's group topic: \(lines.map { $0["topic"] ?? "" })")
            let sequences = lines.compactMap { $0["sequence"] as? UInt64 }
            #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count, "each once, in order: \(sequences)")
        }
    }
}
