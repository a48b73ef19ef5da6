import CamsyncProcessLab
import CamsyncRuntime
import Foundation

/// Runs the selected benchmarks one after the other and collects their results. A benchmark that
/// fails is reported with its error and the targets it did not judge; the others still run, and
/// `camsync bench` exits 2 (so `make bench` fails).
public enum BenchSuite {
    public static func run(_ names: [BenchmarkName], settings: BenchSettings, command: String) -> BenchReport {
        let formatter = ISO8601DateFormatter()
        var report = BenchReport(command: command, quick: settings.quick, machine: BenchSystem.machine(),
                                 startedAt: formatter.string(from: Date()))
        for name in names {
            let started = Clock.monotonicNanoseconds()
            let load = BenchSystem.loadAverage()
            settings.progress("== \(name.rawValue) (load average \(load))")
            var result: BenchmarkResult
            do {
                result = try run(name, settings)
            } catch {
                result = BenchmarkResult(name: name.rawValue, error: "\(error)")
                result.notRun = name.targets
                settings.progress("\(name.rawValue) FAILED: \(error)")
            }
            result.seconds = Double(Clock.monotonicNanoseconds() - started) / 1e9
            result.loadAverage = load
            settings.progress(String(format: "== %@ done in %.1f s", name.rawValue, result.seconds))
            report.results.append(result)
        }
        return report
    }

    static func run(_ name: BenchmarkName, _ settings: BenchSettings) throws -> BenchmarkResult {
        if name.needsEtcd, !EtcdCluster.isAvailable {
            return BenchmarkResult(name: name.rawValue, notes: ["skipped: \(EtcdCluster.unavailableMessage)"])
        }
        return switch name {
        case .latency: try LatencyBenchmark.run(settings)
        case .throughput: try ThroughputBenchmark.run(settings)
        case .fanout: try FanoutBenchmark.run(settings)
        case .failover: try FailoverBenchmark.run(settings)
        case .recovery: try RecoveryBenchmark.run(settings)
        case .memory: try MemoryBenchmark.run(settings)
        case .micro: try MicroBenchmarks.run(settings)
        case .haLatency: try HALatencyBenchmark.run(settings)
        case .haFailover: try HAFailoverBenchmark.run(settings)
        case .haThroughput: try HAThroughputBenchmark.run(settings)
        case .scale: try ScaleBenchmark.run(settings)
        case .fleet: try FleetBenchmark.run(settings)
        case .fleetFailover: try FleetFailoverBenchmark.run(settings)
        }
    }
}
