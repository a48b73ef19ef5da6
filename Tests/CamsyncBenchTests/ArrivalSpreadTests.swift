@testable import CamsyncBench
import Testing

/// `ArrivalSpread`: the heartbeat-spread figure of `fleet` (in the worst interval, its busiest 100 ms
/// over its average).
struct ArrivalSpreadTests {
    /// Monotonic ns at the start of 100 ms bucket `bucket`.
    static func at(_ bucket: Int64) -> UInt64 { UInt64(bucket) * 100_000_000 }

    @Test("an even spread is 1 ×; a whole interval in one 100 ms is the interval over 100 ms")
    func ratios() throws {
        // 1 s intervals, 10 buckets each: 50 arrivals in each bucket, or an interval's 500 in one.
        let even = try #require(ArrivalSpread(Dictionary(uniqueKeysWithValues: (10..<30).map { (Int64($0), 50) }),
                                              from: Self.at(10), to: Self.at(30), intervalMilliseconds: 1000))
        #expect(even.intervals == 2 && even.buckets == 10 && even.busiest == 50 && even.total == 500 && even.ratio == 1)
        let burst = try #require(ArrivalSpread([12: 500, 22: 500], from: Self.at(10), to: Self.at(30), intervalMilliseconds: 1000))
        #expect(burst.busiest == 500 && burst.average == 50 && burst.ratio == 10)
    }

    @Test("an interval twice as busy as the next, evenly, is no burst; the worst interval is the figure")
    func perInterval() throws {
        var arrivals = Dictionary(uniqueKeysWithValues: (10..<20).map { (Int64($0), 100) })
        for bucket in Int64(20)..<30 { arrivals[bucket] = 50 }
        #expect(try #require(ArrivalSpread(arrivals, from: Self.at(10), to: Self.at(30), intervalMilliseconds: 1000)).ratio == 1)
        arrivals[25] = 140   // the second interval: 590 in all, 140 in its busiest 100 ms
        let spread = try #require(ArrivalSpread(arrivals, from: Self.at(10), to: Self.at(30), intervalMilliseconds: 1000))
        #expect(spread.busiest == 140 && spread.total == 590)
    }

    @Test("only whole 100 ms and whole intervals inside the window count; none, or no arrival, is no spread")
    func window() throws {
        // From 50 ms into bucket 10 to 50 ms into bucket 13: buckets 11 and 12, one 200 ms interval.
        let spread = try #require(ArrivalSpread([10: 1000, 11: 4, 12: 6, 13: 1000], from: Self.at(10) + 50_000_000,
                                                to: Self.at(13) + 50_000_000, intervalMilliseconds: 200))
        #expect(spread.intervals == 1 && spread.buckets == 2 && spread.total == 10 && spread.busiest == 6)
        #expect(ArrivalSpread([10: 5], from: Self.at(10), to: Self.at(15), intervalMilliseconds: 1000) == nil, "no whole interval")
        #expect(ArrivalSpread([:], from: Self.at(10), to: Self.at(20), intervalMilliseconds: 1000) == nil)
    }
}
