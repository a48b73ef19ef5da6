public import CamsyncPolicy

/// The sequence of each device group's last batch (docs/PROTOCOL.md "Device groups"): what the
/// coordinator stamps on each batch as its groups' previous sequences, and keeps in its snapshots.
public struct GroupSequences: Sendable, Equatable {
    private var last: [NodeID: UInt64] = [:]

    public init() {}

    /// The sequence of `group`'s last batch (0: none yet).
    public subscript(group: NodeID) -> UInt64 { last[group] ?? 0 }

    public var count: Int { last.count }

    /// Every group with a batch, and the sequence of its last one, in group order.
    public var all: [(group: NodeID, sequence: UInt64)] { last.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }

    /// Calls `body` with every group with a batch and its last one's sequence, in no particular order
    /// (without sorting them, as `all` does).
    public func forEach(_ body: (NodeID, UInt64) -> Void) {
        for (group, sequence) in last { body(group, sequence) }
    }

    /// A batch with `sequence` goes to `groups`: returns each group with the sequence of its
    /// previous batch (what `EventBatch.groups` holds), and moves them to `sequence`.
    public mutating func advance(_ groups: [NodeID], to sequence: UInt64) -> [Camsync_V1_GroupSequence] {
        groups.map { group in
            defer { last[group] = sequence }
            return Camsync_V1_GroupSequence(group: group, sequence: self[group])
        }
    }

    /// As snapshots keep it (`ClusterState.group_sequences`), sorted by group.
    public var wire: [Camsync_V1_GroupSequence] {
        all.map { Camsync_V1_GroupSequence(group: $0.group, sequence: $0.sequence) }
    }

    public init(wire: [Camsync_V1_GroupSequence]) throws(WireMappingError) {
        for (index, entry) in wire.enumerated() {
            let group = try nodeID(entry.group, "group_sequences[\(index)].group")
            guard last.updateValue(entry.sequence, forKey: group) == nil else {
                throw WireMappingError("group_sequences", .duplicate(group.rawValue))
            }
        }
    }
}

extension Camsync_V1_GroupSequence {
    public init(group: NodeID, sequence: UInt64) {
        self.init()
        self.group = group.rawValue
        self.sequence = sequence
    }
}
