public import CamsyncWire
public import CamsyncPolicy
/// One accepted command as the journal keeps it (K3). `command` is the wire encoding
/// of the command (`Camsync_V1_Command`), so the journal itself is independent of the engine.
public struct JournalEntry: Equatable, Sendable {
    public var sequence: UInt64
    public var term: UInt64
    public var timeMilliseconds: Int64
    public var node: String
    public var requestID: UInt64
    public var command: [UInt8]
    /// The `Camsync_V1_EventBatch` as published (served to replay requests, and what the etcd log
    /// keeps); empty only in rows of a journal written before replays existed (schema v1).
    public var batch: [UInt8]

    public init(sequence: UInt64, term: UInt64, timeMilliseconds: Int64, node: String, requestID: UInt64, command: [UInt8],
                batch: [UInt8]) {
        self.sequence = sequence
        self.term = term
        self.timeMilliseconds = timeMilliseconds
        self.node = node
        self.requestID = requestID
        self.command = command
        self.batch = batch
    }
}

/// A state snapshot: the encoded `ClusterState` after applying every command up to `sequence`.
/// A leader's own is made from its state as it stands and encoded when `state` is first read: by
/// the log's writer, on its thread, not the loop's (the state of ten thousand nodes is megabytes,
/// about 100 ms of encoding here; the state is a copy-on-write value, so the copy costs nothing).
public struct JournalSnapshot: Equatable, Sendable {
    public var sequence: UInt64
    public var term: UInt64
    private let content: Content

    private enum Content: Sendable {
        case encoded([UInt8])
        case unencoded(ClusterState, GroupSequences)
    }

    /// The `ClusterState`'s wire encoding (with the device groups' last sequences).
    public var state: [UInt8] {
        switch content {
        case .encoded(let bytes): bytes
        case .unencoded(let state, let groupSequences): WireCodec.encode(state, groupSequences: groupSequences)
        }
    }

    public init(sequence: UInt64, term: UInt64, state: [UInt8]) {
        self.sequence = sequence
        self.term = term
        content = .encoded(state)
    }

    /// `state` as of `sequence`, encoded when it is written.
    public init(sequence: UInt64, term: UInt64, of state: ClusterState, groupSequences: GroupSequences) {
        self.sequence = sequence
        self.term = term
        content = .unencoded(state, groupSequences)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.sequence == b.sequence && a.term == b.term && a.state == b.state
    }
}
