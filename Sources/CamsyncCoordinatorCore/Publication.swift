public import CamsyncWire

/// One message for the event socket: the envelope, and its encoding as it is sent. An accepted
/// command's batch is not encoded for publishing: its envelope is built around the bytes its turn
/// logged (`Envelope.encodedEventBatch`), read once the turn is durable, when they exist already.
public struct Publication: Sendable, Equatable {
    public var envelope: Envelope
    private var encoding: Encoding

    private enum Encoding: Sendable {
        case encoded([UInt8])
        /// Command `index` of the turn being gathered (`attached(to:)` when the turn is committed).
        case gathered(index: Int)
        /// Entry `index` of a committed turn's entries.
        case logged(TurnEntries, index: Int)
    }

    /// A message encoded here (heartbeats, the pulse, a batch published again).
    public init(_ envelope: Envelope) {
        self.envelope = envelope
        encoding = .encoded(envelope.serializedBytes())
    }

    /// Command `index` of the turn being gathered, whose batch is `batch`.
    init(batch: Camsync_V1_EventBatch, gatheredAt index: Int) {
        envelope = .eventBatch(batch)
        encoding = .gathered(index: index)
    }

    /// The same publication, reading its bytes from `entries`, the committed turn it belongs to.
    func attached(to entries: TurnEntries) -> Publication {
        guard case .gathered(let index) = encoding else { return self }
        var attached = self
        attached.encoding = .logged(entries, index: index)
        return attached
    }

    /// `envelope` as protobuf, what goes on the wire.
    public var bytes: [UInt8] {
        switch encoding {
        case .encoded(let bytes): bytes
        case .gathered: envelope.serializedBytes()   // not committed yet: only a planted bug releases it
        case .logged(let turn, let index): Envelope.encodedEventBatch(turn.entries[index].batch, term: envelope.term)
        }
    }

    public static func == (a: Self, b: Self) -> Bool { a.envelope == b.envelope && a.bytes == b.bytes }
}
