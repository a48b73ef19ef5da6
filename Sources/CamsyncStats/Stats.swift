public import Histogram

/// A latency distribution recorded in nanoseconds into an HdrHistogram (3 significant digits,
/// 1 ns … 10 min), summarised in microseconds.
public struct LatencyRecorder: Sendable {
    public private(set) var histogram: Histogram<UInt64>

    public init() {
        histogram = Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000_000,
                              numberOfSignificantValueDigits: .three)
    }

    public mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(max(1, min(nanoseconds, 600_000_000_000)))
    }

    public mutating func record(from start: UInt64, to end: UInt64) {
        record(nanoseconds: end > start ? end - start : 0)
    }

    public mutating func merge(_ other: LatencyRecorder) { histogram.add(other.histogram) }

    public var count: UInt64 { histogram.totalCount }

    public var summary: LatencySummary { LatencySummary(histogram) }
}

/// Percentiles of one distribution, in microseconds.
public struct LatencySummary: Codable, Sendable, Equatable {
    public var count: UInt64
    public var min: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double
    public var mean: Double

    public init(count: UInt64, min: Double, p50: Double, p90: Double, p99: Double, p999: Double, max: Double, mean: Double) {
        self.count = count
        self.min = min
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
        self.mean = mean
    }

    /// Summarises a histogram of nanosecond values. HdrHistogram reports each percentile as the
    /// highest value equivalent (within 3 significant digits) to the recorded value at that rank.
    public init(_ histogram: Histogram<UInt64>) {
        func us(_ ns: UInt64) -> Double { Double(ns) / 1000 }
        guard histogram.totalCount > 0 else {
            self.init(count: 0, min: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0)
            return
        }
        self.init(count: histogram.totalCount, min: us(histogram.min), p50: us(histogram.valueAtPercentile(50)),
                  p90: us(histogram.valueAtPercentile(90)), p99: us(histogram.valueAtPercentile(99)),
                  p999: us(histogram.valueAtPercentile(99.9)), max: us(histogram.max), mean: histogram.mean / 1000)
    }

    /// The summary of plain values (microseconds), via a histogram.
    public init(microseconds values: [Double]) {
        var recorder = LatencyRecorder()
        for value in values { recorder.record(nanoseconds: UInt64(Swift.max(0, value * 1000).rounded())) }
        self = recorder.summary
    }

    /// The percentile by name, for targets ("p50", "p99", "p99.9", "max").
    public func value(_ name: String) -> Double? {
        switch name {
        case "p50": p50
        case "p90": p90
        case "p99": p99
        case "p99.9": p999
        case "max": max
        case "mean": mean
        default: nil
        }
    }
}
