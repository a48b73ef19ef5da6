/// The checks the history checker runs, each a safety property of SPEC.
public enum CheckName: String, Sendable, Equatable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// C1: per camera system, no two apps capture at overlapping times.
    case noOverlappingCaptures
    /// C8: per camera system, a later grant carries a higher token, on every node and globally.
    case tokensStrictlyIncrease
    /// K3, K5: every acknowledged command is in the final journal at its sequence, once.
    case acknowledgedCommandsSurvive
    /// R1: the lower-quality alert at most once per device, and the fact survives.
    case alertAtMostOncePerDevice
    /// K2, K4: every live replica ends equal to the coordinator, at the same sequence.
    case replicasConverge
    /// C2, K3: replaying the journal through the engine gives the recorded reasons and final state.
    case sessionReasonsMatchModel
    /// A1–A8: the audio invariants hold through the replay and on every replica, and every
    /// AVAudioSession notification a node gave agrees with the model.
    case audioMatchesModel
    /// K6 under partitions (the HA soak in network namespaces): a leader cut from etcd stops leading
    /// within its lease, a later term acknowledges soon after, and the replicas converge after each heal.
    case leadershipUnderPartitions

    public var description: String {
        switch self {
        case .noOverlappingCaptures: "no overlapping captures (C1)"
        case .tokensStrictlyIncrease: "tokens strictly increase (C8)"
        case .acknowledgedCommandsSurvive: "acknowledged commands survive (K3, K5)"
        case .alertAtMostOncePerDevice: "R1 alert at most once per device"
        case .replicasConverge: "replicas converge (K2, K4)"
        case .sessionReasonsMatchModel: "C2 reasons match the model (C2, K3)"
        case .audioMatchesModel: "audio sessions match the model (A1–A8)"
        case .leadershipUnderPartitions: "leadership under partitions (K6)"
        }
    }
}

/// One broken property, with the few history entries around it.
public struct Violation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var check: CheckName
    public var message: String
    /// The history slice: the entries around the violation, one per line, the culprit marked `>`.
    public var slice: [String]

    public init(check: CheckName, message: String, slice: [String] = []) {
        self.check = check
        self.message = message
        self.slice = slice
    }

    public var description: String {
        ([ "\(check.rawValue): \(message)" ] + slice.map { "    \($0)" }).joined(separator: "\n")
    }
}

/// The outcome of one check.
public struct CheckResult: Sendable, Equatable, Hashable, Codable {
    public var name: CheckName
    /// How many items the check examined (intervals, grants, acks, devices, replicas, commands).
    public var examined: Int
    /// The violations found (at most `HistoryChecker.maxViolationsPerCheck` kept).
    public var violations: [Violation]
    /// All violations found, including those not kept.
    public var violationCount: Int

    public init(name: CheckName, examined: Int, violations: [Violation], violationCount: Int? = nil) {
        self.name = name
        self.examined = examined
        self.violations = violations
        self.violationCount = violationCount ?? violations.count
    }

    public var passed: Bool { violationCount == 0 }
}

/// Sizes of the history, for the summary.
public struct HistoryCounts: Sendable, Equatable, Hashable, Codable {
    public var operations: Int
    public var faults: Int
    public var faultsByKind: [FaultCount]
    public var intervals: Int
    public var grants: Int
    public var acks: Int
    public var alerts: Int
    public var replayedCommands: Int
    public var replicas: Int

    public init(operations: Int, faults: Int, faultsByKind: [FaultCount], intervals: Int, grants: Int, acks: Int,
                alerts: Int, replayedCommands: Int, replicas: Int) {
        self.operations = operations
        self.faults = faults
        self.faultsByKind = faultsByKind
        self.intervals = intervals
        self.grants = grants
        self.acks = acks
        self.alerts = alerts
        self.replayedCommands = replayedCommands
        self.replicas = replicas
    }
}

/// What the checker found.
public struct CheckReport: Sendable, Equatable, Hashable, Codable {
    public var results: [CheckResult]
    public var counts: HistoryCounts

    public init(results: [CheckResult], counts: HistoryCounts) {
        self.results = results
        self.counts = counts
    }

    /// The result of one check.
    public func result(_ name: CheckName) -> CheckResult? { results.first { $0.name == name } }
    public func passed(_ name: CheckName) -> Bool { result(name)?.passed ?? false }
    /// The checks that failed.
    public var failed: [CheckName] { results.filter { !$0.passed }.map(\.name) }
    public var passed: Bool { results.allSatisfy(\.passed) }
    public var violationCount: Int { results.reduce(0) { $0 + $1.violationCount } }
    /// The first violation, in check order: the counterexample.
    public var counterexample: Violation? { results.lazy.compactMap(\.violations.first).first }

    /// Multi-line, human-readable; the last line is `violations: N`.
    public var summary: String {
        var lines: [String] = ["camsync soak history check"]
        let faults = counts.faultsByKind.map { "\($0.kind) \($0.count)" }.joined(separator: ", ")
        lines.append("operations: \(counts.operations), faults: \(counts.faults)\(faults.isEmpty ? "" : " (\(faults))")")
        lines.append("capture intervals: \(counts.intervals), grant observations: \(counts.grants), acks: \(counts.acks), "
            + "alerts: \(counts.alerts), replayed commands: \(counts.replayedCommands), replicas: \(counts.replicas)")
        for result in results {
            let verdict = result.passed ? "PASS" : "FAIL"
            let detail = result.passed ? "\(result.examined) checked" : "\(result.violationCount) violation(s) in \(result.examined) checked"
            lines.append("[\(verdict)] \(result.name) — \(detail)")
        }
        if let first = counterexample {
            lines.append("first violation:")
            lines.append("  \(first.check.rawValue): \(first.message)")
            if !first.slice.isEmpty {
                lines.append("  history slice:")
                lines += first.slice.map { "    \($0)" }
            }
        }
        lines.append("violations: \(violationCount)")
        return lines.joined(separator: "\n")
    }
}
