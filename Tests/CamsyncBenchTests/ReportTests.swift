import CamsyncBench
import CamsyncStats
import Foundation
import Testing

@Suite struct ReportTests {
    static let machine = MachineInfo(cpus: 2, cpuModel: "Test CPU", memoryGiB: 24, kernel: "6.1", os: "Debian 12", loadAverage: 0.5)

    static func sample() -> BenchReport {
        let floor = LatencySummary(microseconds: [80, 85, 90])
        let claim = LatencySummary(microseconds: [150, 160, 400])
        return BenchReport(command: "camsync bench --quick", quick: true, machine: machine, startedAt: "2025-01-01T00:00:00Z", results: [
            BenchmarkResult(name: "latency",
                rows: [BenchRow(benchmark: "latency", scenario: "claim", latency: claim, rssMB: 12.5, floorP50: floor.p50)],
                targets: [TargetCheck(figure: "claim p50", measured: claim.p50, .atMost, 2 * floor.p50, unit: .microseconds, basis: "2 × floor"),
                          TargetCheck(figure: "commands/s", measured: 40_000, .atLeast, 50_000, unit: .perSecond)],
                notes: ["a note"]),
            BenchmarkResult(name: "fanout", error: "subscribers not ready"),
        ])
    }

    @Test("durations and rates read well at every scale")
    func formatting() {
        #expect(ReportFormatter.duration(microseconds: 5.123) == "5.12µs")
        #expect(ReportFormatter.duration(microseconds: 85.34) == "85.3µs")
        #expect(ReportFormatter.duration(microseconds: 1234) == "1.23ms")
        #expect(ReportFormatter.duration(microseconds: 2_410_000) == "2.41s")
        #expect(ReportFormatter.rate(950) == "950")
        #expect(ReportFormatter.rate(5_432) == "5.43k")
        #expect(ReportFormatter.rate(51_234) == "51.2k")
        #expect(ReportFormatter.rate(2_500_000) == "2.50M")
        #expect(ReportFormatter.value(99.94, unit: .megabytes) == "99.9 MB")
    }

    @Test("targets: at most / at least, and the ratio to the floor")
    func targets() {
        #expect(TargetCheck(figure: "f", measured: 1.0, .atMost, 1.0, unit: .microseconds).met)
        #expect(!TargetCheck(figure: "f", measured: 1.1, .atMost, 1.0, unit: .microseconds).met)
        #expect(TargetCheck(figure: "f", measured: 60_000, .atLeast, 50_000, unit: .perSecond).met)
        #expect(!TargetCheck(figure: "f", measured: 40_000, .atLeast, 50_000, unit: .perSecond).met)
        let row = BenchRow(benchmark: "b", scenario: "s", latency: LatencySummary(microseconds: [200]), floorP50: 100)
        #expect(abs((row.ratioToFloor ?? 0) - 2) < 0.01)
        #expect(BenchRow(benchmark: "b", scenario: "s", latency: nil, floorP50: 100).ratioToFloor == nil)
    }

    @Test("the table lists rows, verdicts, errors and notes")
    func table() {
        let text = ReportFormatter.render(Self.sample())
        #expect(text.contains("2 CPUs"))
        #expect(text.contains("load average 0.5"))
        #expect(text.contains("p99.9"))
        #expect(text.contains("12.5 MB"))
        #expect(text.contains("MISSED"))
        #expect(text.contains("  met"))
        #expect(text.contains("FAILED: subscribers not ready"))
        #expect(text.contains("- [latency] a note"))
        let lines = text.split(separator: "\n")
        let header = lines.first { $0.hasPrefix("benchmark") }!
        let rule = lines[lines.firstIndex(of: header)! + 1]
        #expect(rule.allSatisfy { $0 == "-" || $0 == " " })
    }

    @Test("plain table alignment: left columns padded right, numbers padded left")
    func alignment() {
        let text = ReportFormatter.table(["a", "n"], [["xx", "1"], ["y", "100"]], leftColumns: 1)
        #expect(text == "a     n\n--  ---\nxx    1\ny   100")
    }

    @Test("JSON round-trips the whole report")
    func json() throws {
        let report = Self.sample()
        let json = try report.json()
        #expect(json.contains("\"p999\""))
        #expect(try BenchReport.decode(json: json) == report)
    }
}
