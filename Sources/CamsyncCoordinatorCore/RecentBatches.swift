/// The last committed batches, in sequence order, as published (their bytes: a standby keeps them
/// without decoding their events, a leader as its turn's log entries encoded them; they are decoded
/// only when a replay or a republication needs them): what the core serves replays from
/// without reading the log (a thousand nodes filling gaps at once must not each cost a read on the
/// loop thread), and what a new leader publishes again (K7). Bounded: it keeps the last `capacity`
/// batches; older ones are read from the log.
///
/// A ring: once full, each batch kept takes the place of the oldest, so each append frees one old
/// batch. (Trimming the front in bulk freed 16,384 batches at once on the loop every 16,384 commands.)
public struct RecentBatches: Sendable {
    public let capacity: Int
    /// Up to `capacity` batches; once full, `oldest` is where the sequence starts.
    private var ring: [[UInt8]] = []
    /// The sequence of each batch, parallel to `ring`.
    private var sequences: [UInt64] = []
    /// Index in `ring` of the oldest kept batch.
    private var oldest = 0

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The index in `ring` of the `offset`-th kept batch, oldest first.
    private func position(_ offset: Int) -> Int { (oldest + offset) % ring.count }

    /// The sequence of the oldest batch kept, nil when empty.
    public var firstSequence: UInt64? { ring.isEmpty ? nil : sequences[oldest] }
    public var lastSequence: UInt64? { ring.isEmpty ? nil : sequences[position(ring.count - 1)] }
    public var count: Int { ring.count }

    /// Keeps batch `sequence`, `encoded` as published, the one after the last kept; anything else (a
    /// gap, a rebuilt state) starts afresh.
    public mutating func append(sequence: UInt64, encoded: [UInt8]) {
        if let last = lastSequence, sequence != last + 1 { removeAll() }
        if ring.count < capacity {
            ring.append(encoded)
            sequences.append(sequence)
        } else {
            ring[oldest] = encoded
            sequences[oldest] = sequence
            oldest = (oldest + 1) % capacity
        }
    }

    /// Batch `sequence` as published, if kept.
    public func batch(_ sequence: UInt64) -> [UInt8]? {
        guard let first = firstSequence, sequence >= first, sequence - first < UInt64(ring.count) else { return nil }
        return ring[position(Int(sequence - first))]
    }

    public mutating func removeAll() {
        ring.removeAll(keepingCapacity: true)
        sequences.removeAll(keepingCapacity: true)
        oldest = 0
    }

    /// Whether the batch after `sequence` is kept (a replay from it can be served from here).
    public func holds(after sequence: UInt64) -> Bool {
        guard let first = firstSequence, let last = lastSequence else { return false }
        return sequence + 1 >= first && sequence < last
    }

    /// The kept batches after `sequence` and at most `through`, as published, oldest first, at most
    /// `limit` of them and about `byteLimit` bytes (always at least one when there is one).
    public func after(_ sequence: UInt64, through last: UInt64 = .max, limit: Int = .max, byteLimit: Int = .max) -> [[UInt8]] {
        guard let first = firstSequence else { return [] }
        var offset = Int(sequence + 1 > first ? sequence + 1 - first : 0)
        var out: [[UInt8]] = []
        var bytes = 0
        while offset < ring.count, out.count < limit {
            let index = position(offset)
            guard sequences[index] <= last else { break }
            let size = ring[index].count
            if !out.isEmpty, bytes + size > byteLimit { break }
            bytes += size
            out.append(ring[index])
            offset += 1
        }
        return out
    }
}

extension RecentBatches: Equatable {
    /// The same batches kept, in the same order, under the same capacity (wherever the ring starts).
    public static func == (a: RecentBatches, b: RecentBatches) -> Bool {
        a.capacity == b.capacity && a.count == b.count
            && (0..<a.count).allSatisfy { a.sequences[a.position($0)] == b.sequences[b.position($0)] && a.ring[a.position($0)] == b.ring[b.position($0)] }
    }
}
