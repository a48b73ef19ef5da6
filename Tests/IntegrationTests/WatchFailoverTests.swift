import CamsyncProcessLab
import CamsyncWire
import CamsyncPolicy
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ctl watch` across a failover (SPEC K6, K7): a new leader publishes again the old leader's last
/// batches that may not have reached anyone; the watch prints each sequence once.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)))
struct WatchFailoverTests {
    @Test("a leader that never heard the old one's pulse publishes its last batches again; ctl watch shows each sequence once")
    func watchPrintsEachSequenceOnce() async throws {
        try await HighAvailabilityTests.withHACluster { cluster in
            let watchOutput = "\(cluster.runDirectory)/watch.out"
            FileManager.default.createFile(atPath: watchOutput, contents: nil)
            let watch = Process()
            watch.executableURL = URL(fileURLWithPath: try camsyncBinary())
            watch.arguments = ["ctl", "watch", "--coordinator", cluster.commandEndpoint, "--events", cluster.eventEndpoint, "--json"]
            watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: watchOutput))
            watch.standardError = FileHandle.nullDevice
            try watch.run()
            defer {
                if watch.isRunning { kill(watch.processIdentifier, SIGKILL) }
                watch.waitUntilExit()
            }
            func shown() -> [UInt64] {
                let text = (try? String(contentsOfFile: watchOutput, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").compactMap { line in
                    ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["sequence"] as? UInt64
                }
            }
            // What the coordinators publish, repeats included (drained at the end: the SUB queues it).
            let raw = try cluster.eventSubscriber(topics: [EventTopic.everyBatch, EventTopic.heartbeat])
            var terms: Set<UInt64> = []
            defer { raw.close() }
            var published: [UInt64] = []
            func drain() throws {
                while let (_, envelope) = try raw.next(timeoutMilliseconds: 0) {
                    terms.insert(envelope.term)
                    if case .eventBatch(let batch)? = envelope.body { published.append(batch.sequence) }
                }
            }
            // Both are subscribed once each shows a batch acted now.
            let leader = try HighAvailabilityTests.leader(cluster)
            try cluster.waitUntil(timeout: 20, what: "ctl watch and the test's subscriber to show a batch") {
                try cluster.act("ipad-1", [.openFullScreen(AppID(device: "ipad-1", bundleID: "com.example.scanner"), trigger: .user)])
                try drain()
                return !shown().isEmpty && !published.isEmpty
            }
            // Only the leader runs; it publishes a few batches, then dies. Standbys started afterwards never
            // heard its pulse, so the one that wins publishes again its last (up to 64) batches (K7).
            for name in cluster.topology.coordinatorProcessNames where name != leader { cluster.signalCoordinator(named: name, SIGKILL) }
            for app in ["com.example.videocall", "com.example.scanner", "com.example.videocall"] {
                try cluster.act("ipad-1", [.openFullScreen(AppID(device: "ipad-1", bundleID: app), trigger: .user)])
            }
            let before = try cluster.coordinatorState().sequence
            try cluster.waitUntil(timeout: 10, what: "ctl watch to show sequence \(before)") { shown().contains(before) }
            cluster.signalCoordinator(named: leader, SIGKILL)
            for name in cluster.topology.coordinatorProcessNames where name != leader { try cluster.startCoordinator(named: name) }
            // A positive sign that the new leader's publications reached the watch: an action acknowledged after the failover.
            var after: UInt64 = 0
            try cluster.waitUntil(timeout: 60, what: "a new leader to acknowledge an action") {
                try drain()
                guard (try? cluster.act("ipad-2", [.openFullScreen(AppID(device: "ipad-2", bundleID: "com.example.videocall"), trigger: .user)]))
                        != nil else { return false }
                after = try cluster.coordinatorState().sequence
                return true
            }
            #expect(after > before)
            try cluster.waitUntil(timeout: 10, what: "ctl watch to show sequence \(after)") { shown().contains(after) }
            // The new leader did publish the old tail again (else this proves nothing about the watch).
            do {
                try cluster.waitUntil(timeout: 10, what: "the test's subscriber to receive sequence \(after)") {
                    try drain()
                    return published.contains(after)
                }
            } catch {
                Issue.record("\(error); received \(published) in terms \(terms); ctl watch showed \(shown())")
            }
            #expect(published.filter { $0 == before }.count >= 2, "sequence \(before) published by the old leader and again by the new: \(published)")
            let sequences = shown()
            #expect(sequences == Array(Set(sequences)).sorted(), "each sequence once, in order: \(sequences)")
            #expect(sequences.contains(before) && sequences.last == after)
        }
    }
}
}
