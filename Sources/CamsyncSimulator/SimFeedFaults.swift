import CamsyncRuntime

/// Faults of a node's feed, on a schedule and a random stream of their own (so that adding them
/// left the choices of every seed's other faults as they were): a **lagging feed** — everything the
/// coordinators send one node (its feed's pushes and its replies alike) arrives 50–800 ms late, in
/// order, for 0.3–4 s, as a congested connection or a slow consumer does, while what it sends is not
/// slowed.
struct FeedFaults {
    var rng: SplitMix64
    /// Extra delay of each lagging node's publications (µs), and until when it lasts.
    var lag: [Int: (by: Int64, until: Int64)] = [:]
    /// When the last publication to each node is delivered: a feed delivers in order.
    var lastDelivery: [Int: Int64] = [:]

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed ^ 0x5EED_F33D_0000_0002)
    }

    mutating func delay(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &rng) }
}

extension Simulation {

    /// The next fault of a feed, while the fault phase lasts.
    func injectFeedFault() {
        let n = Int(feedFaults.rng.next() % UInt64(nodes.count))
        let by = feedFaults.delay(50_000...800_000), lasting = feedFaults.delay(300_000...4_000_000)
        feedFaults.lag[n] = (by, now + lasting)
        disturb(.node(n), until: now + lasting + by)
        faultCounts["lagging-feed", default: 0] += 1
        trace.note(now, "fault lagging-feed (\(nodes[n].config.id) hears its feed \(SimTrace.clock(by)) s late for \(SimTrace.clock(lasting)) s)")
    }

    /// When a publication the network delivers to node `n` at `at` reaches it: late while its feed
    /// lags, and never before one published earlier.
    func feedDelivery(to n: Int, at: Int64) -> Int64 {
        var at = at
        if let lag = feedFaults.lag[n] {
            if at < lag.until { at += lag.by } else { feedFaults.lag[n] = nil }
        }
        if let last = feedFaults.lastDelivery[n], at < last { at = last }
        if feedFaults.lag[n] != nil || feedFaults.lastDelivery[n] != nil { feedFaults.lastDelivery[n] = at }
        return at
    }
}
