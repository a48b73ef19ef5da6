/// The last `capacity` items, oldest first.
struct RingBuffer<Element: Sendable>: Sendable {
    let capacity: Int
    private var storage: [Element] = []
    private var head = 0
    /// How many items were ever appended (so readers can ask for "everything after n").
    private(set) var appended: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    mutating func append(_ element: Element) {
        appended += 1
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    var elements: [Element] {
        Array(storage[head...] + storage[..<head])
    }
}
