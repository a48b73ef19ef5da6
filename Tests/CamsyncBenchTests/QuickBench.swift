import CamsyncLab
import Foundation
import Testing

/// Runs one benchmark in its quick form, the way `make test` exercises them.
enum QuickBench {
    /// Runs `name` quick on a plain thread (the benchmarks block; the test's task must not); the
    /// result must have no error and its load average.
    static func run(_ name: BenchmarkName) async throws -> BenchmarkResult {
        let executable = try CamsyncExecutable.besideThisProcess()
        let directory = "\(NSTemporaryDirectory())camsync-bench-test-\(getpid())-\(name.rawValue)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = BenchSettings(executable: executable, workDirectory: directory, quick: true, nodes: 5)
        // tmpfs: this test runs beside every other suite, and etcd on the shared disk then times out.
        settings.etcdDataParent = EtcdCluster.scratchParent
        let configured = settings
        let report = await withCheckedContinuation { (done: CheckedContinuation<BenchReport, Never>) in
            Thread { done.resume(returning: BenchSuite.run([name], settings: configured, command: "test")) }.start()
        }
        let result = try #require(report.results.first)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.loadAverage != nil)
        return result
    }
}
