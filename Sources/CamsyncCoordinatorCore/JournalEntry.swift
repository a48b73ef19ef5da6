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
public struct JournalSnapshot: Equatable, Sendable {
    public var sequence: UInt64
    public var term: UInt64
    public var state: [UInt8]

    public init(sequence: UInt64, term: UInt64, state: [UInt8]) {
        self.sequence = sequence
        self.term = term
        self.state = state
    }
}
