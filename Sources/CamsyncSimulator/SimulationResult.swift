public import CamsyncHistory

/// What a simulated run found.
public struct SimulationResult: Sendable {
    public var options: SimulationOptions
    /// FNV-1a of every delivery and fault: one seed, one hash.
    public var traceHash: UInt64
    public var traceLines: [String]
    /// The history checker's verdict on the run.
    public var report: CheckReport
    /// What the simulator's own oracle found: engine invariants after each commit, K7 false
    /// declarations, and the liveness phase.
    public var oracleViolations: [String]
    public var simulatedMilliseconds: Int64
    public var events: Int
    public var operations: Int
    public var acknowledged: Int
    /// Of those, the acknowledgements that came through a node's control socket (`ctl act`).
    public var acknowledgedThroughNodes: Int
    public var faults: [FaultCount]

    public var passed: Bool { report.passed && oracleViolations.isEmpty }

    public var summary: String {
        let planted = options.plantedBug.map { ", planted bug \($0.rawValue)" } ?? ""
        let shape = "\(options.mode.rawValue), \(options.coordinators) coordinator(s), \(options.nodes) nodes\(planted)"
        let faultList = faults.map { "\($0.kind) \($0.count)" }.joined(separator: ", ")
        let seconds = Double(simulatedMilliseconds) / 1000
        var lines: [String] = []
        lines.append("seed \(options.seed) (\(shape)): \(passed ? "passed" : "FAILED")")
        lines.append("  simulated \(seconds) s, \(events) events, \(operations) operations, \(acknowledged) acknowledged (\(acknowledgedThroughNodes) through a node's control socket); faults: \(faultList)")
        lines.append("  trace hash \(String(traceHash, radix: 16))")
        if !passed {
            lines += oracleViolations.prefix(10).map { "  oracle: \($0)" }
            for result in report.results where !result.passed {
                lines += result.violations.prefix(5).map { "  \(result.name): \($0.message)" }
            }
            lines.append("  replay: \(options.replayCommand)")
        }
        return lines.joined(separator: "\n")
    }
}
