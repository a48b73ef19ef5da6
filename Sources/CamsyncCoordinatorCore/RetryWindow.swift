/// K5: the replies to recent requests, by (node, request id), so a retried command
/// gets its original reply instead of being applied twice. Bounded: the oldest
/// entries fall out first.
public struct RetryWindow<Reply: Sendable>: Sendable {
    public struct Key: Hashable, Sendable {
        public var node: String
        public var requestID: UInt64
        public init(node: String, requestID: UInt64) {
            self.node = node
            self.requestID = requestID
        }
    }

    public let capacity: Int
    private var replies: [Key: Reply] = [:]
    private var order: [Key] = []
    private var head = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a retry window needs room for at least one reply")
        self.capacity = capacity
        order.reserveCapacity(capacity)
    }

    public var count: Int { replies.count }

    public func reply(for key: Key) -> Reply? { replies[key] }

    public mutating func remember(_ reply: Reply, for key: Key) {
        if replies.updateValue(reply, forKey: key) != nil { return }
        if order.count < capacity {
            order.append(key)
        } else {
            replies[order[head]] = nil
            order[head] = key
            head = (head + 1) % capacity
        }
    }
}
