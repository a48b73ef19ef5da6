import CamsyncBench
import CamsyncProcessLab
import Foundation
import Testing

/// Runs one benchmark in its quick form, the way `make test` exercises them.
enum QuickBench {
    /// Runs `name` quick (it blocks: its suites carry `.ownThreads`); the result must have no error
    /// and its load average.
    static func run(_ name: BenchmarkName, configure: (inout BenchSettings) -> Void = { _ in }) throws -> BenchmarkResult {
        let executable = try CamsyncExecutable.besideThisProcess()
        let directory = "\(NSTemporaryDirectory())camsync-bench-test-\(getpid())-\(name.rawValue)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = BenchSettings(executable: executable, workDirectory: directory, quick: true, nodes: 5)
        // tmpfs: this test runs beside every other suite, and etcd on the shared disk then times out.
        settings.etcdDataParent = EtcdCluster.scratchParent
        configure(&settings)
        let report = BenchSuite.run([name], settings: settings, command: "test")
        let result = try #require(report.results.first)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.loadAverage != nil)
        return result
    }
}
