import CamsyncTestSupport
import Foundation
import Testing

/// `make run-ha`: the demo's story on three coordinators over etcd, with the leader killed mid-story.
extension EtcdBackedTests {
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3)))
struct DemoHATests {
    @Test("demo --ha: the leader is killed after step 7, another leads, cameras keep holders and tokens, the story goes on; exit 0")
    func demoSurvivesTheLeader() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try camsyncBinary())
        process.arguments = ["demo", "--ha", "--json"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Bounded: a demo that hangs is killed (and reaped) rather than holding the suite.
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 150, execute: killer)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        #expect(process.terminationStatus == 0)
        let lines = text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let steps = lines.filter { $0["step"] != nil }
        #expect(steps.count == 30, "every step ran")
        #expect(steps.allSatisfy { ($0["outcome"] as? String)?.hasPrefix("sequence") == true },
                "every step after the failover was acknowledged too")
        let failover = try #require(lines.compactMap { $0["failover"] as? [String: Any] }.first, "one failover report")
        let killed = try #require(failover["killed"] as? String), leader = try #require(failover["leader"] as? String)
        #expect(["c1", "c2", "c3"].contains(killed) && ["c1", "c2", "c3"].contains(leader) && killed != leader)
        #expect(failover["camerasKept"] as? Bool == true, "\(failover["cameras"] ?? "")")
        #expect((failover["millisecondsToFirstAck"] as? Int).map { $0 > 0 } == true)
        // The narration says what happened, as the survivors' logs tell it: a standby's suspicion (its pulse
        // stopped, the lease revoked) or, had none heard the pulse, the lease's expiry.
        let takeover = try #require(failover["takeover"] as? String), narration = try #require(failover["narration"] as? String)
        switch takeover {
        case "suspicion": #expect(narration.contains("stopped hearing \(killed)'s pulse") && narration.contains("revoked its lease, without waiting"),
                                  "\(narration)")
        case "leaseExpiry": #expect(narration.contains("\(killed)'s lease expired"), "\(narration)")
        default: Issue.record("takeover is suspicion or leaseExpiry, not \(takeover)")
        }
        #expect(narration.contains("\(leader) won the election"), "\(narration)")
        let cameras = (failover["cameras"] as? [String]) ?? []
        #expect(cameras.contains("ipad-1/builtin: held by ipad-1/com.example.videocall, token 3 → ipad-1/com.example.videocall, token 3"),
                "\(cameras)")
        // The story after the failover: ipad-2's call is granted its camera, then interrupted by Split View (C2.4).
        guard steps.count == 30 else { return }
        let events = (steps[10]["events"] as? [String]) ?? []
        #expect(events.contains { $0.contains("ipad-2 com.example.videocall: wasInterrupted") && $0.contains("raw=4") })
    }
}
}
