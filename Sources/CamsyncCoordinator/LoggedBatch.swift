public import CamsyncWire

/// One batch of the HA command log as a coordinator takes it from etcd (a standby following the
/// watch, a rebuild, a catch-up read): decoded once, with its encoded size, which `RecentBatches`
/// keeps for replays. A log turn is split at the wire level (`turn(_:)`), so no batch is encoded
/// again to learn its size and no command is encoded and decoded again to be applied.
public struct LoggedBatch: Sendable, Equatable {
    public var batch: Camsync_V1_EventBatch
    /// Bytes of `batch` as published.
    public var size: Int

    public init(batch: Camsync_V1_EventBatch, size: Int) {
        self.batch = batch
        self.size = size
    }

    /// A batch held decoded (tests, the simulator's store): its size is that of its encoding.
    public init(_ batch: Camsync_V1_EventBatch) {
        self.init(batch: batch, size: (try? batch.serializedBytes() as [UInt8])?.count ?? 0)
    }

    /// One `EventBatch` as published.
    public init(encoded bytes: [UInt8]) throws {
        self.init(batch: try Camsync_V1_EventBatch(serializedBytes: bytes), size: bytes.count)
    }

    /// The batches of one log turn (a `Replay`'s `batches`, field 1), in order, each decoded once.
    public static func turn(_ value: [UInt8]) throws -> [LoggedBatch] {
        try encodedBatches(ofTurn: value).map(LoggedBatch.init(encoded:))
    }

    /// The batches of one log turn as they were published, without decoding them.
    public static func encodedBatches(ofTurn value: [UInt8]) throws -> [[UInt8]] {
        guard let fields = ProtobufWire.parse(value, depth: 0) else { throw UnreadableTurn() }
        return fields.compactMap { field in
            guard field.number == 1, case .bytes(let bytes, _) = field.value else { return nil }
            return bytes
        }
    }

    /// A log value that is not a sequence of well-formed protobuf fields.
    public struct UnreadableTurn: Error, CustomStringConvertible {
        public var description: String { "a log turn that is not a well-formed Replay" }
    }
}
