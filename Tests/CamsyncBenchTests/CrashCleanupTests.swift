@testable import CamsyncLab
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `camsync bench` that crashes takes its children with it: etcd members and coordinators are
/// killed from the crash handler (`ChildProcesses`), not left running.
@Suite(.ownThreads, .timeLimit(.minutes(3)),
       .enabled(if: EtcdCluster.isAvailable, Comment(rawValue: EtcdCluster.unavailableMessage)))
struct CrashCleanupTests {
    /// Whether `pid` is a process that runs (not gone, not a zombie).
    static func runs(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// A crash (a bad access, an abort) once `started` children run: 1, while etcd is starting (its
    /// members are not healthy yet); 6, when the 3 etcd members and the 3 coordinators run. With
    /// `backtrace`, Swift's backtracer (the default) prints the crash after the children are killed.
    @Test("a bench that crashes kills every child it started, and still dies of its signal",
          arguments: [(SIGSEGV, 1, false), (SIGSEGV, 6, false), (SIGABRT, 6, true)])
    func crashKillsChildren(signal: Int32, started: Int, backtrace: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = backtrace ? "enable=yes,interactive=no" : "enable=no"
        let bench = try ManagedProcess(name: "bench", executable: try CamsyncExecutable.besideThisProcess(),
                                       arguments: ["bench", "--quick", "ha-throughput", "--work-dir", directory],
                                       logPath: directory + "/bench.log", environment: environment)
        var children: [Int32] = []
        defer {
            for pid in children where Self.runs(pid) { kill(pid, SIGKILL) }
            bench.stop(grace: 1)
        }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, bench.isRunning {
            children = ManagedProcess.children(of: bench.pid)
            if children.count >= started { break }
            usleep(50_000)
        }
        try #require(children.count >= started, "the bench's children: \(children)\n\(bench.logTail())")
        bench.signal(signal)
        #expect(bench.wait(timeout: 20), "the bench ends")
        let end = Date().addingTimeInterval(10)
        while Date() < end, children.contains(where: Self.runs) { usleep(50_000) }
        #expect(children.filter(Self.runs).isEmpty, "children still running after the crash: \(children.filter(Self.runs))")
        #expect(bench.stop(grace: 0) == signal, "the bench dies of its signal\n\(bench.logTail())")
        if backtrace { #expect(bench.logTail(400).contains("Program crashed"), "the backtracer still ran") }
    }
}
