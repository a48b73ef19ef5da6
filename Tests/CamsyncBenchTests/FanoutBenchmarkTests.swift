import CamsyncBench
import CamsyncProcessLab
import CamsyncTestSupport
import Foundation
import Testing

/// `fanout` in its quick form against a real coordinator and real subscriber processes, and what
/// a benchmark that cannot run does to the report and to `camsync bench`'s exit status. Timings
/// are never asserted (this machine is shared).
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(5)))
struct FanoutBenchmarkTests {
    @Test("fanout runs: the floor and the coordinator reach every subscriber, and the target is judged")
    func fanoutRuns() throws {
        let result = try QuickBench.run(.fanout) { settings in
            settings.subscribers = 40
            settings.subscriberProcesses = 2
        }
        #expect(result.rows.contains { $0.benchmark == "floor" && $0.scenario.hasPrefix("raw PUB → all 40 SUBs")
            && ($0.latency?.count ?? 0) > 0 })
        #expect(result.rows.contains { $0.benchmark == "fanout" && $0.scenario.hasPrefix("command → batch on all 40 SUBs")
            && ($0.latency?.count ?? 0) > 0 })
        #expect(result.targets.map(\.figure) == ["event reaches all 40 nodes, p99"])
        #expect(result.notRun == nil)
    }

    @Test("a benchmark that cannot run: the report lists its targets as not run, and camsync bench exits 2")
    func failedBenchmarkFailsTheRun() throws {
        let executable = try CamsyncExecutable.besideThisProcess()
        let directory = "\(NSTemporaryDirectory())camsync-fanout-fail-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The coordinator's prefix `false` makes its process exit at once: the floor runs, the coordinator never serves.
        let run = try runCommand(executable, ["bench", "--quick", "fanout", "--subscribers", "8", "--subscriber-processes", "2",
                                              "--coordinator-prefix", "false", "--silent", "--work-dir", directory,
                                              "--json-file", "\(directory)/report.json"], timeout: 180)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("NOT RUN"), "\(run.output)")
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/report.json"))
        let report = try JSONDecoder().decode(BenchReport.self, from: data)
        let fanout = try #require(report.results.first)
        #expect(fanout.error != nil)
        #expect(fanout.notRun == BenchmarkName.fanout.targets)
        #expect(!BenchmarkName.fanout.targets.isEmpty)
    }
}
