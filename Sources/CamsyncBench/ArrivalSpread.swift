/// How evenly a fleet's heartbeats and bookmarks reach its nodes within a heartbeat interval: the
/// arrivals the nodes counted in each 100 ms of CLOCK_MONOTONIC (shared by the processes of one
/// machine), cut into interval-long spans from the window's first whole 100 ms; in each span the
/// busiest 100 ms against the span's average; the figure is the worst span's. A leader that sends
/// every node's heartbeat at once makes one 100 ms carry the interval's (the ratio is then the
/// interval over 100 ms); one that spreads them evenly makes it about 1. Spans, not the whole
/// window: the bookmarks a batch makes due weigh one interval more than the next, which is not a
/// burst within either.
struct ArrivalSpread: Equatable {
    /// The length of a bucket (ms).
    static let bucketMilliseconds: Int64 = 100

    /// Whole intervals in the window; buckets in each.
    let intervals: Int
    let buckets: Int
    /// The worst interval's busiest 100 ms and its total.
    let busiest: Int
    let total: Int
    var average: Double { Double(total) / Double(max(1, buckets)) }
    var ratio: Double { Double(busiest) / max(average, 1e-9) }

    /// The spread of `arrivals` (bucket → count, a bucket being monotonic ms / 100) over the whole
    /// intervals of `intervalMilliseconds` inside `start ..< end` (monotonic ns); nil when the window
    /// holds no whole interval with an arrival.
    init?(_ arrivals: [Int64: Int], from start: UInt64, to end: UInt64, intervalMilliseconds: Int64) {
        let width = Self.bucketMilliseconds * 1_000_000
        let first = (Int64(start) + width - 1) / width, last = Int64(end) / width   // whole buckets: first ..< last
        let perInterval = max(1, Int(intervalMilliseconds / Self.bucketMilliseconds))
        let spans = max(0, Int(last - first)) / perInterval
        var worst: (busiest: Int, total: Int)?
        for span in 0..<spans {
            let from = first + Int64(span * perInterval)
            let counts = (from..<(from + Int64(perInterval))).map { arrivals[$0] ?? 0 }
            let (busiest, total) = (counts.max() ?? 0, counts.reduce(0, +))
            guard total > 0 else { continue }
            if worst.map({ Double(busiest) / Double(total) > Double($0.busiest) / Double($0.total) }) ?? true { worst = (busiest, total) }
        }
        guard let worst else { return nil }
        intervals = spans
        buckets = perInterval
        busiest = worst.busiest
        total = worst.total
    }

    /// The bucket of the monotonic instant `milliseconds`.
    static func bucket(milliseconds: Int64) -> Int64 { milliseconds / bucketMilliseconds }
}
