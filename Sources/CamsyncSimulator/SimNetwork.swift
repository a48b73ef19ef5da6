import CamsyncRuntime

/// Who can reach whom, and how fast (SPEC's network: ZeroMQ over TCP). Each link is FIFO (one TCP
/// connection) unless a reordering fault is on; latency is drawn per message (0.08–0.6 ms, 1 % of
/// them 1–30 ms later); a partition cuts links; message faults drop or duplicate while they last.
struct SimNetwork {
    enum Endpoint: Hashable {
        case store
        case coordinator(Int)
        case node(Int)
        case client(Int)
        case observer(Int)
    }

    /// Links a partition cut (both directions are listed).
    var cuts: Set<Link> = []
    var dropRate = 0.0
    var duplicateRate = 0.0
    var reorder = false
    /// Extra delay on every message while a slow-network fault lasts (µs).
    var extraDelay: Int64 = 0
    /// When each link last delivered (µs): FIFO per link.
    private var lastDelivery: [Link: Int64] = [:]

    struct Link: Hashable {
        var from: Endpoint
        var to: Endpoint
    }

    func connected(_ a: Endpoint, _ b: Endpoint) -> Bool { cuts.isEmpty || !cuts.contains(Link(from: a, to: b)) }

    /// The delivery times of one message, in order: none (lost), one, or two (duplicated). A value,
    /// not an array: one is drawn for every message sent.
    struct Deliveries: Sequence, IteratorProtocol {
        private var times: (Int64?, Int64?)

        init(_ first: Int64? = nil, _ second: Int64? = nil) { times = (first, second) }

        var first: Int64? { times.0 }

        mutating func next() -> Int64? {
            defer { times = (times.1, nil) }
            return times.0
        }
    }

    /// The delivery times of one message (none: lost; two: duplicated), at `now` (µs).
    mutating func deliveries(from: Endpoint, to: Endpoint, at now: Int64, rng: inout SplitMix64) -> Deliveries {
        guard connected(from, to) else { return Deliveries() }
        if dropRate > 0, rng.chance(dropRate) { return Deliveries() }
        var latency = Int64.random(in: 80...600, using: &rng)
        if rng.chance(0.01) { latency += Int64.random(in: 1_000...30_000, using: &rng) }
        latency += extraDelay
        let link = Link(from: from, to: to)
        var at = now + latency
        if !reorder { at = max(at, (lastDelivery[link] ?? 0) + 1) }
        lastDelivery[link] = max(lastDelivery[link] ?? 0, at)
        if duplicateRate > 0, rng.chance(duplicateRate) { return Deliveries(at, at + Int64.random(in: 1...2_000, using: &rng)) }
        return Deliveries(at)
    }

    /// Ends every partition and message fault.
    mutating func heal() {
        cuts.removeAll()
        dropRate = 0
        duplicateRate = 0
        reorder = false
        extraDelay = 0
    }
}

