import CamsyncLab
import Testing

/// `camsync bench micro` in its quick form: every row is measured (the core row fails if the core
/// refuses any of its commands), and no figure is asserted.
@Suite struct MicroBenchmarkTests {
    @Test func everyMicroRowIsMeasured() async throws {
        let result = try await QuickBench.run(.micro)
        let scenarios = result.rows.map(\.scenario)
        for expected in ["coordinator core: 64 nodes' start/stop frames", "coordinator core: the same turns' batches encoded",
                         "journal append, 1 ×", "journal append, 64 ×", "engine apply start/stop_session"] {
            #expect(scenarios.contains { $0.hasPrefix(expected) }, "no row \(expected)…: \(scenarios)")
        }
        for row in result.rows where row.latency == nil {
            #expect((row.throughputPerSecond ?? 0) > 0, "\(row.scenario) measured nothing")
        }
    }
}
