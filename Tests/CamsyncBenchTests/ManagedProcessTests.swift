import CamsyncTestSupport
import Foundation
import Testing
@testable import CamsyncProcessLab

/// The harness's child processes: stopped within a bound and always reaped.
@Suite(.ownThreads) struct ManagedProcessTests {
    private func spawn(_ script: String) throws -> (ManagedProcess, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("managed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = try ManagedProcess(name: "sh", executable: "/bin/sh", arguments: ["-c", script],
                                         logPath: directory + "/sh.log")
        return (process, directory)
    }

    @Test func aChildThatIgnoresTermIsKilledAndReaped() throws {
        let (process, directory) = try spawn("trap '' TERM; echo ready; while :; do sleep 0.05; done")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deadline = Date().addingTimeInterval(5)
        while !process.logTail().contains("ready"), Date() < deadline { usleep(10_000) }
        let status = process.stop(grace: 0.2)
        #expect(!process.isRunning)
        #expect(status == SIGKILL)
    }

    @Test func childrenOfAProcessAreFound() throws {
        let (process, directory) = try spawn("sleep 30 & echo started $!; wait")
        defer {
            process.stop(grace: 0.2)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let deadline = Date().addingTimeInterval(5)
        while !process.logTail().contains("started"), Date() < deadline { usleep(10_000) }
        let line = try #require(process.logTail().split(separator: "\n").first { $0.hasPrefix("started") })
        let sleeper = try #require(Int32(line.split(separator: " ")[1]))
        #expect(ManagedProcess.children(of: process.pid) == [sleeper])
        kill(sleeper, SIGKILL)
    }
}

/// Loopback ports for the lab's processes: never the same one twice in a process, outside the
/// kernel's ephemeral range, bindable when handed out.
@Suite struct LoopbackPortsTests {
    @Test("500 ports in a row: all different, in 10000–19999, each bindable when handed out")
    func portsAreUniqueAndOutsideTheEphemeralRange() {
        let ports = (0..<500).map { _ in LoopbackPorts.free() }
        #expect(Set(ports).count == ports.count)
        #expect(ports.allSatisfy { (10_000...19_999).contains($0) })
        #expect(ports.prefix(20).allSatisfy(LoopbackPorts.bindable))
    }
}
