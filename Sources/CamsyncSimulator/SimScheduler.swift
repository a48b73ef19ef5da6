/// The simulator's event queue: events in order of simulated time, ties in order of scheduling, so
/// that one seed gives one order.
struct SimScheduler<Event> {
    private var heap: [(time: Int64, order: UInt64, event: Event)] = []
    private var scheduled: UInt64 = 0
    private(set) var now: Int64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    mutating func schedule(_ event: Event, at time: Int64) {
        scheduled += 1
        heap.append((max(time, now), scheduled, event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The next event, and the clock moved to its time.
    mutating func next() -> Event? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.before(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        now = first.time
        return first.event
    }

    private static func before(_ a: (time: Int64, order: UInt64, event: Event), _ b: (time: Int64, order: UInt64, event: Event)) -> Bool {
        a.time < b.time || (a.time == b.time && a.order < b.order)
    }
}

/// Every delivery and fault of a run, hashed (FNV-1a) so that two runs of one seed can be compared by
/// one number, and written out as lines when asked (`camsync sim --trace`).
struct SimTrace {
    private(set) var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    private(set) var lines: [String] = []
    let keepsLines: Bool
    private(set) var events = 0

    init(keepsLines: Bool) { self.keepsLines = keepsLines }

    mutating func record(_ time: Int64, _ what: @autoclosure () -> String, _ values: Int64..., bytes: [UInt8] = []) {
        events += 1
        mix(UInt64(bitPattern: time))
        for value in values { mix(UInt64(bitPattern: value)) }
        for byte in bytes { mixByte(byte) }
        if keepsLines { lines.append("\(Self.clock(time)) \(what())") }
    }

    /// Folds in a line that only the trace shows (faults, verdicts).
    mutating func note(_ time: Int64, _ line: String) {
        for byte in line.utf8 { mixByte(byte) }
        if keepsLines { lines.append("\(Self.clock(time)) \(line)") }
    }

    private mutating func mix(_ value: UInt64) {
        var v = value
        for _ in 0..<8 {
            mixByte(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    private mutating func mixByte(_ byte: UInt8) {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }

    /// Simulated microseconds as seconds (`12.003456`).
    static func clock(_ microseconds: Int64) -> String {
        let fraction = String(microseconds % 1_000_000)
        return "\(microseconds / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}
