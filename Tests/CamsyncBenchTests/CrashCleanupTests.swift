@testable import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `camsync bench` that crashes takes its children with it: etcd members and coordinators are
/// killed from the crash handler (`ChildProcesses`), not left running.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(5)),
       .enabled(if: EtcdCluster.isAvailable, Comment(rawValue: EtcdCluster.unavailableMessage)))
struct CrashCleanupTests {
    /// Whether `pid` is a process that runs (not gone, not a zombie).
    static func runs(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// A crash (a bad access, an abort) once `started` children run: 1, while etcd is starting (its
    /// members are not healthy yet); 6, when the 3 etcd members and the 3 coordinators run. Swift's
    /// backtracer is off: it takes 4 s of a quiet machine and over 20 s of a loaded one to print a
    /// debug build's crash (the handler hands it the signal; docs/PERFORMANCE.md, checked by hand).
    @Test("a bench that crashes kills every child it started, and still dies of its signal",
          arguments: [(SIGSEGV, 1), (SIGABRT, 6)])
    func crashKillsChildren(signal: Int32, started: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // A bench that ends by itself before its children run (etcd not healthy in time on a loaded
        // machine, a port taken by a concurrent test) is started again, up to 3 times.
        var bench: ManagedProcess!
        var children: [Int32] = []
        var earlier: [ManagedProcess] = []
        defer {
            for pid in children where Self.runs(pid) { kill(pid, SIGKILL) }
            for process in earlier + [bench].compactMap({ $0 }) { process.stop(grace: 1) }
        }
        for attempt in 1...3 {
            if let bench { earlier.append(bench) }
            bench = try ManagedProcess(name: "bench", executable: try CamsyncExecutable.besideThisProcess(),
                                       arguments: ["bench", "--quick", "ha-throughput", "--work-dir", directory + "/\(attempt)"],
                                       logPath: directory + "/bench-\(attempt).log", environment: environment)
            let deadline = Date().addingTimeInterval(90)
            children = []
            while Date() < deadline, bench.isRunning {
                children = ManagedProcess.children(of: bench.pid)
                if children.count >= started { break }
                usleep(50_000)
            }
            if children.count >= started || bench.isRunning { break }
        }
        try #require(children.count >= started, "the bench's children: \(children)\n\((earlier + [bench]).map { $0.logTail() }.joined(separator: "\n--\n"))")
        bench.signal(signal)
        #expect(bench.wait(timeout: 20), "the bench ends")
        let end = Date().addingTimeInterval(10)
        while Date() < end, children.contains(where: Self.runs) { usleep(50_000) }
        #expect(children.filter(Self.runs).isEmpty, "children still running after the crash: \(children.filter(Self.runs))")
        #expect(bench.stop(grace: 0) == signal, "the bench dies of its signal\n\(bench.logTail())")
    }
}
