public import CamsyncWire

/// The last committed batches, in sequence order, as published: what the core serves replays from
/// without reading the log (a thousand nodes filling gaps at once must not each cost a read on the
/// loop thread), and what a new leader publishes again (K7). Bounded: it keeps at least the last
/// `capacity` batches; older ones are read from the log.
public struct RecentBatches: Sendable, Equatable {
    public let capacity: Int
    private var batches: [Camsync_V1_EventBatch] = []
    /// The encoded size of each batch, parallel to `batches` (a replay reply stays under a byte limit).
    private var sizes: [Int] = []
    /// Index of the oldest kept batch in `batches` (the front is trimmed in bulk: O(1) amortized).
    private var start = 0

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The sequence of the oldest batch kept, nil when empty.
    public var firstSequence: UInt64? { start < batches.count ? batches[start].sequence : nil }
    public var lastSequence: UInt64? { batches.last?.sequence }
    public var count: Int { batches.count - start }

    /// Keeps `batch` (`size` bytes encoded), the one after the last kept; anything else (a gap, a
    /// rebuilt state) starts afresh.
    public mutating func append(_ batch: Camsync_V1_EventBatch, size: Int) {
        if let last = lastSequence, batch.sequence != last + 1 { removeAll() }
        batches.append(batch)
        sizes.append(size)
        if count > capacity {
            start = batches.count - capacity
            if start >= capacity {
                batches.removeFirst(start)
                sizes.removeFirst(start)
                start = 0
            }
        }
    }

    public mutating func removeAll() {
        batches.removeAll(keepingCapacity: true)
        sizes.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Whether the batch after `sequence` is kept (a replay from it can be served from here).
    public func holds(after sequence: UInt64) -> Bool {
        guard let first = firstSequence, let last = lastSequence else { return false }
        return sequence + 1 >= first && sequence < last
    }

    /// The kept batches after `sequence` and at most `through`, oldest first, at most `limit` of them
    /// and about `byteLimit` bytes (always at least one when there is one).
    public func after(_ sequence: UInt64, through last: UInt64 = .max, limit: Int = .max, byteLimit: Int = .max) -> [Camsync_V1_EventBatch] {
        guard let first = firstSequence else { return [] }
        var index = start + Int(sequence + 1 > first ? sequence + 1 - first : 0)
        var out: [Camsync_V1_EventBatch] = []
        var bytes = 0
        while index < batches.count, out.count < limit, batches[index].sequence <= last {
            let size = sizes[index]
            if !out.isEmpty, bytes + size > byteLimit { break }
            bytes += size
            out.append(batches[index])
            index += 1
        }
        return out
    }
}
