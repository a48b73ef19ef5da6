public import CamsyncStats
import Foundation

/// One measured distribution or rate of a benchmark.
public struct BenchRow: Codable, Sendable, Equatable {
    public var benchmark: String
    public var scenario: String
    public var latency: LatencySummary?
    public var throughputPerSecond: Double?
    public var rssMB: Double?
    /// The floor's p50 in µs (raw DEALER/ROUTER round trip measured in the same run), if relevant.
    public var floorP50: Double?

    public init(benchmark: String, scenario: String, latency: LatencySummary? = nil, throughputPerSecond: Double? = nil,
                rssMB: Double? = nil, floorP50: Double? = nil) {
        self.benchmark = benchmark
        self.scenario = scenario
        self.latency = latency
        self.throughputPerSecond = throughputPerSecond
        self.rssMB = rssMB
        self.floorP50 = floorP50
    }

    /// p50 as a multiple of the floor's p50.
    public var ratioToFloor: Double? {
        guard let latency, let floorP50, floorP50 > 0, latency.count > 0 else { return nil }
        return latency.p50 / floorP50
    }
}

/// A performance target (docs/PERFORMANCE.md "Targets") checked against a measured figure.
public struct TargetCheck: Codable, Sendable, Equatable {
    public enum Comparison: String, Codable, Sendable { case atMost = "<=", atLeast = ">=" }
    public enum Unit: String, Codable, Sendable { case microseconds = "us", perSecond = "/s", megabytes = "MB", ratio = "x", count = "n" }

    public var figure: String
    public var measured: Double
    public var comparison: Comparison
    public var target: Double
    public var unit: Unit
    /// How the target was derived (e.g. "2 × floor p50 85µs", "interval × liveness + 100 ms").
    public var basis: String

    public init(figure: String, measured: Double, _ comparison: Comparison, _ target: Double, unit: Unit, basis: String = "") {
        self.figure = figure
        self.measured = measured
        self.comparison = comparison
        self.target = target
        self.unit = unit
        self.basis = basis
    }

    public var met: Bool {
        switch comparison {
        case .atMost: measured <= target
        case .atLeast: measured >= target
        }
    }
}

/// Everything one benchmark produced.
public struct BenchmarkResult: Codable, Sendable, Equatable {
    public var name: String
    public var rows: [BenchRow]
    public var targets: [TargetCheck]
    public var notes: [String]
    public var seconds: Double
    public var error: String?
    /// The targets a benchmark that failed did not judge (`BenchmarkName.targets`); nil when it ran.
    public var notRun: [String]?
    /// 1-minute load average when the benchmark started (the machine may be shared).
    public var loadAverage: Double?

    public init(name: String, rows: [BenchRow] = [], targets: [TargetCheck] = [], notes: [String] = [],
                seconds: Double = 0, error: String? = nil) {
        self.name = name
        self.rows = rows
        self.targets = targets
        self.notes = notes
        self.seconds = seconds
        self.error = error
    }
}

/// A whole `camsync bench` run.
public struct BenchReport: Codable, Sendable, Equatable {
    public var command: String
    public var quick: Bool
    public var machine: MachineInfo
    public var startedAt: String
    public var results: [BenchmarkResult]

    public init(command: String, quick: Bool, machine: MachineInfo, startedAt: String, results: [BenchmarkResult] = []) {
        self.command = command
        self.quick = quick
        self.machine = machine
        self.startedAt = startedAt
        self.results = results
    }

    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    public static func decode(json: String) throws -> BenchReport {
        try JSONDecoder().decode(BenchReport.self, from: Data(json.utf8))
    }
}

/// Plain-text rendering of a report.
public enum ReportFormatter {
    /// µs → "85.3µs", "1.23ms", "2.41s".
    public static func duration(microseconds us: Double) -> String {
        if us < 10 { return String(format: "%.2fµs", us) }
        if us < 1000 { return String(format: "%.1fµs", us) }
        if us < 1_000_000 { return String(format: "%.2fms", us / 1000) }
        return String(format: "%.2fs", us / 1_000_000)
    }

    /// 51234 → "51.2k", 950 → "950".
    public static func rate(_ perSecond: Double) -> String {
        if perSecond >= 1_000_000 { return String(format: "%.2fM", perSecond / 1_000_000) }
        if perSecond >= 10_000 { return String(format: "%.1fk", perSecond / 1000) }
        if perSecond >= 1000 { return String(format: "%.2fk", perSecond / 1000) }
        return String(format: "%.0f", perSecond)
    }

    public static func value(_ value: Double, unit: TargetCheck.Unit) -> String {
        switch unit {
        case .microseconds: duration(microseconds: value)
        case .perSecond: rate(value) + "/s"
        case .megabytes: String(format: "%.1f MB", value)
        case .ratio: String(format: "%.2f×", value)
        case .count: String(format: "%.0f", value)
        }
    }

    /// Left-aligns the first `leftColumns` columns (and those in `alsoLeft`) and right-aligns the rest.
    public static func table(_ header: [String], _ rows: [[String]], leftColumns: Int = 2, alsoLeft: Set<Int> = []) -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                return i < leftColumns || alsoLeft.contains(i) ? cell + pad : pad + cell
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    public static func render(_ report: BenchReport) -> String {
        var out = "camsync bench — \(report.machine.cpus) CPUs (\(report.machine.cpuModel)), \(report.machine.memoryGiB) GiB, "
            + "kernel \(report.machine.kernel), \(report.machine.os), load average \(report.machine.loadAverage) at start\n"
        out += "command: \(report.command)\(report.quick ? "   (quick run: small samples)" : "")\nstarted: \(report.startedAt)\n\n"
        let header = ["benchmark", "scenario", "n", "p50", "p90", "p99", "p99.9", "max", "rate", "RSS", "floor p50", "p50/floor"]
        var rows: [[String]] = []
        for result in report.results {
            for row in result.rows {
                let l = row.latency
                func d(_ v: Double?) -> String { (l?.count ?? 0) > 0 ? v.map { duration(microseconds: $0) } ?? "" : "" }
                rows.append([
                    row.benchmark, row.scenario, l.map { "\($0.count)" } ?? "",
                    d(l?.p50), d(l?.p90), d(l?.p99), d(l?.p999), d(l?.max),
                    row.throughputPerSecond.map { rate($0) + "/s" } ?? "",
                    row.rssMB.map { String(format: "%.1f MB", $0) } ?? "",
                    row.floorP50.map { duration(microseconds: $0) } ?? "",
                    row.ratioToFloor.map { String(format: "%.2f×", $0) } ?? "",
                ])
            }
            if let error = result.error { rows.append([result.name, "FAILED: \(error)"] + Array(repeating: "", count: 10)) }
        }
        out += table(header, rows) + "\n\n"
        let checks = report.results.flatMap(\.targets)
        let notRun = report.results.flatMap { result in (result.notRun ?? []).map { (result.name, $0) } }
        if !checks.isEmpty || !notRun.isEmpty {
            out += "targets (docs/PERFORMANCE.md \"Targets\")\n"
            out += table(["figure", "measured", "target", "verdict", "basis"], checks.map { check in
                [check.figure, value(check.measured, unit: check.unit),
                 "\(check.comparison == .atMost ? "≤" : "≥") \(value(check.target, unit: check.unit))",
                 check.met ? "met" : "MISSED", check.basis]
            } + notRun.map { name, figure in [figure, "—", "", "NOT RUN", "\(name) failed"] },
            leftColumns: 1, alsoLeft: [3, 4]) + "\n\n"
        }
        let loads = report.results.compactMap { r in r.loadAverage.map { "\(r.name) \($0)" } }
        let notes = report.results.flatMap { r in r.notes.map { "[\(r.name)] \($0)" } }
            + (loads.isEmpty ? [] : ["1-minute load average at the start of each benchmark: " + loads.joined(separator: ", ")])
        if !notes.isEmpty { out += "notes\n" + notes.map { "- \($0)" }.joined(separator: "\n") + "\n" }
        return out
    }
}
