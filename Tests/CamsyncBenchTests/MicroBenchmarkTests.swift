@testable import CamsyncBench
import CamsyncTestSupport
import Testing

/// `camsync bench micro`'s coordinator-core row, small: it runs, and it throws if the core refuses
/// any of its commands (no figure is asserted). Small on purpose: `make test` runs it beside the
/// suites that start etcd clusters, and the whole `micro` in a debug build kept a core busy for a
/// minute there.
@Suite(.ownThreads) struct MicroBenchmarkTests {
    @Test func theCoreRowDecidesEveryCommandItSends() throws {
        let result = try CoreMicroBenchmark.run(commands: 1_280)
        #expect(result.loopCommandsPerSecond > 0)
        #expect(result.encodingCommandsPerSecond > 0)
        // The standby followed the whole log (it throws otherwise, or if its state differs).
        #expect(result.followedCommandsPerSecond > 0)
    }
}
