import CamsyncPolicy

/// The nodes a leader watches for silence (K1), earliest deadline first: a binary heap with at most
/// one entry a node. An entry's deadline is never later than the node's true one (traffic only moves
/// a node's deadline later), so a look at time t takes the entries due by t, declares dead those
/// still silent and puts the others back at their true deadline: a look costs the entries that fell
/// due, not a pass over every node of the cluster, and a node is still declared at its timeout
/// exactly.
struct LivenessDeadlines: Sendable {
    private var heap: [Entry] = []
    /// The nodes with an entry: a node has one at most.
    private var scheduled: Set<NodeID> = []

    private struct Entry: Sendable {
        var due: Int64
        var node: NodeID
    }

    init() {}

    /// Every node of `deadlines`, each at its deadline.
    init(_ deadlines: some Sequence<(node: NodeID, due: Int64)>) {
        for (node, due) in deadlines where scheduled.insert(node).inserted {
            heap.append(Entry(due: due, node: node))
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The earliest deadline of any entry, or nil when no node is watched.
    var earliest: Int64? { heap.first?.due }

    /// Watches `node` from `due` on, unless it has an entry already (that one is no later).
    mutating func schedule(_ node: NodeID, due: Int64) {
        guard scheduled.insert(node).inserted else { return }
        heap.append(Entry(due: due, node: node))
        siftUp(heap.count - 1)
    }

    /// Takes out every entry due at or before `time`, earliest first.
    mutating func takeDue(atOrBefore time: Int64) -> [NodeID] {
        var due: [NodeID] = []
        while let first = heap.first, first.due <= time {
            due.append(first.node)
            scheduled.remove(first.node)
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
        return due
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && heap[right].due < heap[left].due ? right : left
            guard heap[child].due < heap[parent].due else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
