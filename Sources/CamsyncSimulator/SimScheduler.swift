import CamsyncRuntime
/// The simulator's event queue: events in order of simulated time, ties in order of scheduling, so
/// that one seed gives one order.
///
/// The heap holds small keys (time, order, slot); each event waits in its slot, written once when
/// scheduled and moved out once when it comes, so sifting never copies an event's payload.
struct SimScheduler<Event> {
    private struct Key {
        var time: Int64
        var order: UInt64
        var slot: Int32

        func isBefore(_ other: Key) -> Bool { time < other.time || (time == other.time && order < other.order) }
    }

    private var heap: [Key] = []
    private var slots: [Event?] = []
    /// Slots whose event has come: reused before the slot array grows.
    private var freeSlots: [Int32] = []
    private var scheduled: UInt64 = 0
    private(set) var now: Int64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    mutating func schedule(_ event: consuming Event, at time: Int64) {
        scheduled += 1
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(free)] = event
        } else {
            slot = Int32(slots.count)
            slots.append(event)
        }
        let key = Key(time: max(time, now), order: scheduled, slot: slot)
        heap.append(key)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard key.isBefore(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = key
    }

    /// The next event, and the clock moved to its time.
    mutating func next() -> Event? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            // Sift the last key down from the root.
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                guard left < heap.count else { break }
                let child = right < heap.count && heap[right].isBefore(heap[left]) ? right : left
                guard heap[child].isBefore(last) else { break }
                heap[parent] = heap[child]
                parent = child
            }
            heap[parent] = last
        }
        now = first.time
        freeSlots.append(first.slot)
        return slots[Int(first.slot)].take()
    }
}

/// Every delivery and fault of a run, hashed (FNV-1a) so that two runs of one seed can be compared by
/// one number, and written out as lines when asked (`camsync sim --trace`).
struct SimTrace {
    private var fnv = FNV1a()
    var hash: UInt64 { fnv.value }
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

    private mutating func mixByte(_ byte: UInt8) { fnv.mix(byte) }

    /// Simulated microseconds as seconds (`12.003456`).
    static func clock(_ microseconds: Int64) -> String {
        let fraction = String(microseconds % 1_000_000)
        return "\(microseconds / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}
