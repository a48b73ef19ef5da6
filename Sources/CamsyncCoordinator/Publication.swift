public import CamsyncWire

/// One message for the event socket: the envelope, and its encoding as it is sent. A batch's
/// envelope is encoded from the batch's bytes, which the turn encoded once for the log
/// (`Envelope.encodedEventBatch`): the batch is not encoded a second time to be published.
public struct Publication: Sendable, Equatable {
    public var envelope: Envelope
    /// `envelope` as protobuf, what goes on the wire.
    public var bytes: [UInt8]

    /// A message encoded here (heartbeats, the pulse).
    public init(_ envelope: Envelope) {
        self.envelope = envelope
        bytes = envelope.serializedBytes()
    }

    /// An accepted command's batch, `encoded` being its bytes as logged.
    public init(batch: Camsync_V1_EventBatch, encoded: [UInt8]) {
        envelope = .eventBatch(batch)
        bytes = Envelope.encodedEventBatch(encoded, term: batch.term)
    }
}
