public import CamsyncWire

/// One batch of the HA command log as a coordinator takes it from etcd (a standby following the
/// watch, a rebuild, a catch-up read): its bytes as published, which `RecentBatches` keeps for the
/// replays and republishing it would serve as leader, and the batch decoded without its events —
/// all that following it needs (the engine derives the events again). A log turn is split at the
/// wire level (`turn(_:)`), so no batch is encoded again, and its events are never decoded: they were
/// half of a standby's decoding, a third of its work under load (docs/PERFORMANCE.md).
public struct LoggedBatch: Sendable, Equatable {
    /// The batch's fields but its events (sequence, term, time, origin, command).
    public var batch: Camsync_V1_EventBatch
    /// The batch as published.
    public var encoded: [UInt8]

    /// Bytes of the batch as published.
    public var size: Int { encoded.count }

    /// One `EventBatch` as published.
    public init(encoded bytes: [UInt8]) throws {
        batch = try Self.withoutEvents(bytes)
        encoded = bytes
    }

    /// A batch held decoded (tests, the simulator's store), as the log would hold it.
    public init(_ batch: Camsync_V1_EventBatch) {
        encoded = WireCodec.encode(batch)
        var header = batch
        header.events = []
        self.batch = header
    }

    /// `bytes` decoded up to its events (field 7, `events`, written last): the fields before them;
    /// a batch whose events are not last is decoded whole and its events dropped.
    static func withoutEvents(_ bytes: [UInt8]) throws -> Camsync_V1_EventBatch {
        if let end = ProtobufWire.trailingFieldsStart(7, in: bytes) {
            return try Camsync_V1_EventBatch(serializedBytes: bytes[..<end])
        }
        var batch = try Camsync_V1_EventBatch(serializedBytes: bytes)
        batch.events = []
        return batch
    }

    /// The batches of one log turn (a `Replay`'s `batches`, field 1), in order, each decoded once.
    public static func turn(_ value: [UInt8]) throws -> [LoggedBatch] {
        try encodedBatches(ofTurn: value).map(LoggedBatch.init(encoded:))
    }

    /// The batches of one log turn (its etcd value, `LogTurn`) as they were published, without decoding them.
    public static func encodedBatches(ofTurn value: [UInt8]) throws -> [[UInt8]] {
        guard let fields = ProtobufWire.parse(try LogTurn.replay(value), depth: 0) else {
            throw UnreadableTurn(reason: "not a well-formed Replay")
        }
        return fields.compactMap { field in
            guard field.number == 1, case .bytes(let bytes, _) = field.value else { return nil }
            return bytes
        }
    }

    /// A log value that is neither a well-formed `Replay` nor a well-formed deflated one.
    public struct UnreadableTurn: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "an unreadable log turn: \(reason)" }
    }
}
