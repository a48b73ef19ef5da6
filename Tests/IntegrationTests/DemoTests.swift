import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `make run` is the product's front door: the demo must tell the story it narrates.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct DemoTests {
    @Test("the demo's story happens: reason 3, interruptionEnded, reason 4, throttle, reason 5, one alert, audio with reason 2; exit 0")
    func demoTellsTheStory() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try camsyncBinary())
        process.arguments = ["demo", "--json"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let steps = text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(steps.count == 30, "every output line is one JSON step")
        func events(_ step: Int) -> [String] { (steps[step - 1]["events"] as? [String]) ?? [] }
        guard steps.count == 30 else { return }
        #expect(events(5).contains { $0.contains("didStartPictureInPicture") }, "P3: the call enters PiP")
        #expect(events(6).contains { $0.contains("videocall: wasInterrupted") && $0.contains("raw=3") }, "C4")
        #expect(events(7).contains { $0.contains("videocall: interruptionEnded") }, "C6")
        #expect(events(11).contains { $0.contains("ipad-2 com.example.videocall: wasInterrupted") && $0.contains("raw=4") }, "C2.4 on iPadOS 15")
        #expect(events(14).contains { $0.contains("systemPressureAdvice") }, "S2")
        #expect(events(15).contains { $0.contains("raw=5") }, "S3")
        #expect(events(16).contains { $0.contains("interruptionEnded") }, "S3 → C6")
        let alerts = steps.flatMap { ($0["events"] as? [String]) ?? [] }.filter { $0.contains("recordingQualityAlert") }
        #expect(alerts.count == 1, "R1: once per device, ever")
        // Audio (A1–A8) on ipad-2.
        #expect(events(23).contains { $0.contains("game: silenceSecondaryAudioHintNotification type=begin") }, "A5")
        #expect(!events(24).contains { $0.contains("interruptionNotification") }, "A3: the ambient game interrupts nobody")
        #expect(events(25).contains { $0.contains("game: interruptionNotification") && $0.contains("appWasSuspended") }, "A8")
        #expect(events(26).contains { $0.contains("music: interruptionNotification") && $0.contains("type=began") }, "A3")
        #expect(events(29).contains { $0.contains("recorder: wasInterrupted") && $0.contains("raw=2") }, "A7: reason 2")
        #expect(events(30).contains { $0.contains("music: interruptionNotification") && $0.contains("shouldResume=true") }, "A6")
        #expect(events(30).contains { $0.contains("recorder: interruptionEnded") }, "A7, C6: it resumes without restarting")
    }

    @Test("`camsync demo | head -3`: when the demo's reader goes away, the demo ends and no process of its cluster survives")
    func demoEndsItsClusterWhenItsReaderGoesAway() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try camsyncBinary())
        process.arguments = ["demo"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // Read until the first step is told: the cluster is up by then.
        let reader = out.fileHandleForReading
        var text = ""
        while !text.contains("\n1. ") {
            let data = reader.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        #expect(text.contains("\n1. "), "the story began: \(text)")
        let cluster = Self.descendants(of: process.processIdentifier)
        #expect(cluster.count >= 4, "a coordinator, two iPads and a display run: \(cluster)")
        // What `head` does once it has its lines: close its end of the pipe.
        try reader.close()
        #expect(ended.wait(timeout: .now() + 60) == .success, "the demo ended within 60 s of its reader going away")
        let survivors = cluster.filter(Self.isAlive)
        #expect(survivors.isEmpty, "every process of the demo's cluster ended; still running: \(survivors)")
        for pid in survivors { kill(pid, SIGKILL) }
    }

    /// Every process below `root` (children, their children, …), from /proc's parent pids.
    static func descendants(of root: Int32) -> [Int32] {
        var parent: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After "pid (comm)": the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let ppid = Int32(fields[1]) { parent[pid] = ppid }
        }
        var found: [Int32] = [], frontier = [root]
        while let next = frontier.popLast() {
            let children = parent.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found.sorted()
    }

    /// Whether `pid` still runs (a zombie has ended: only its exit status waits to be read).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
