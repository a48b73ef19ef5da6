import CamsyncRuntime
import CamsyncBench
import CamsyncStats
import CamsyncTestSupport
import Histogram
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct StatsTests {
    @Test("percentiles of 1…1000 µs are the ranks within HdrHistogram's 3 significant digits")
    func uniformPercentiles() {
        var recorder = LatencyRecorder()
        for us in 1...1000 { recorder.record(nanoseconds: UInt64(us) * 1000) }
        let s = recorder.summary
        #expect(s.count == 1000)
        #expect(abs(s.p50 - 500) <= 0.5)
        #expect(abs(s.p90 - 900) <= 1)
        #expect(abs(s.p99 - 990) <= 1)
        #expect(abs(s.p999 - 999) <= 1)
        #expect(abs(s.max - 1000) <= 1)
        #expect(abs(s.min - 1) <= 0.01)
        #expect(abs(s.mean - 500.5) <= 0.5)
    }

    @Test("a tail shows at p99.9 and max, not at p50")
    func tail() {
        var recorder = LatencyRecorder()
        for _ in 0..<999 { recorder.record(nanoseconds: 100_000) }
        recorder.record(nanoseconds: 50_000_000)
        let s = recorder.summary
        #expect(abs(s.p50 - 100) < 0.1)
        #expect(abs(s.p99 - 100) < 0.1)
        #expect(abs(s.max - 50_000) / 50_000 < 0.001)
    }

    @Test("empty recorder summarises to zeros; from/to never goes negative")
    func emptyAndClamped() {
        #expect(LatencyRecorder().summary == LatencySummary(count: 0, min: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0))
        var recorder = LatencyRecorder()
        recorder.record(from: 10, to: 5)
        #expect(recorder.count == 1)
        #expect(recorder.summary.max < 0.01)
    }

    @Test("merging recorders adds their counts; microsecond values summarise the same way")
    func mergeAndValues() {
        var a = LatencyRecorder(), b = LatencyRecorder()
        a.record(nanoseconds: 1_000)
        b.record(nanoseconds: 3_000)
        a.merge(b)
        #expect(a.count == 2)
        let s = LatencySummary(microseconds: [1, 2, 3, 4])
        #expect(s.count == 4)
        #expect(abs(s.p50 - 2) < 0.01)
        #expect(s.value("p99.9") == s.p999)
        #expect(s.value("p42") == nil)
    }
}

@Suite(.ownThreads) struct SystemTests {
    /// Up to 30 s of computing: on threads of its own (`.ownThreads`), never holding one of the
    /// cooperative pool's two here (under a loaded `make test` that starved the async tests beside it).
    @Test("thread CPU seconds of this process grow while it computes; VmRSS is readable")
    func cpuAndMemory() {
        let pid = getpid()
        let before = BenchSystem.threadCPUSeconds(pid: pid)
        #expect(!before.isEmpty)
        // Compute until this thread has been charged 0.2 CPU seconds (however loaded the machine
        // is); the 30 s bound only stops a broken reader from spinning forever.
        var x: UInt64 = 1
        let start = Clock.monotonicNanoseconds()
        var share = (process: 0.0, busiestThread: 0.0)
        var seconds = 0.0
        while seconds < 30 {
            for _ in 0..<1_000_000 { x = x &* 6364136223846793005 &+ 1 }
            seconds = Double(Clock.monotonicNanoseconds() - start) / 1e9
            share = BenchSystem.cpuShare(before: before, after: BenchSystem.threadCPUSeconds(pid: pid), seconds: seconds)
            if share.busiestThread * seconds >= 0.2 { break }
        }
        #expect(x != 0)
        #expect(share.busiestThread * seconds >= 0.2, "the busiest thread was charged \(share.busiestThread * seconds) s in \(seconds) s")
        #expect(share.process >= share.busiestThread)
        #expect((BenchSystem.rssMegabytes(pid: pid) ?? 0) > 1)
    }
}
