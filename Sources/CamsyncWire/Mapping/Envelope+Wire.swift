public import CamsyncPolicy
internal import SwiftProtobuf

/// The one message on every socket (see docs/PROTOCOL.md).
public typealias Envelope = Camsync_V1_Envelope

extension Camsync_V1_Envelope {
    /// The sender id the coordinator uses in its envelopes.
    public static let coordinatorSender = "coordinator"
    /// The sender name that is an admin in lab mode (no CURVE keys): the CLI's default identity.
    public static let adminSender = "admin"

    /// A node's heartbeat (the coordinator answers none; a node's own traffic counts as one, K1).
    public var isNodeHeartbeat: Bool {
        if case .nodeHeartbeat? = body { true } else { false }
    }

    /// An envelope of the current protocol version with the given header and body.
    public init(sender: String, requestID: UInt64 = 0, term: UInt64 = 0, body: OneOf_Body) {
        self.init()
        protocolVersion = WireProtocol.version
        self.sender = sender
        self.requestID = requestID
        self.term = term
        self.body = body
    }

    // MARK: Requests (node/CLI → coordinator)

    /// A command request. `requestID` is unique per sender; a retry reuses it (K5).
    public static func request(_ command: Command, sender: String, requestID: UInt64, term: UInt64 = 0) -> Self {
        Self(sender: sender, requestID: requestID, term: term, body: .command(Camsync_V1_Command(command)))
    }

    /// A snapshot request (K2: subscribe first, then ask).
    public static func snapshotRequest(sender: String, requestID: UInt64, term: UInt64 = 0) -> Self {
        Self(sender: sender, requestID: requestID, term: term, body: .snapshotRequest(Camsync_V1_SnapshotRequest()))
    }

    /// A node's heartbeat (K1); not answered.
    public static func nodeHeartbeat(sender: String, time: Instant, term: UInt64 = 0) -> Self {
        Self(sender: sender, term: term, body: .nodeHeartbeat(Camsync_V1_NodeHeartbeat(time: time)))
    }

    // MARK: Replies (coordinator → requester; request_id copied from the request)

    /// The command was accepted and produced `sequence`.
    public static func ack(sequence: UInt64, requestID: UInt64, term: UInt64, sender: String = coordinatorSender) -> Self {
        Self(sender: sender, requestID: requestID, term: term, body: .ack(Camsync_V1_Ack(sequence: sequence)))
    }

    /// An error reply.
    public static func error(_ error: Camsync_V1_Error, requestID: UInt64, term: UInt64,
                             sender: String = coordinatorSender) -> Self {
        Self(sender: sender, requestID: requestID, term: term, body: .error(error))
    }

    /// An `ERROR_CODE_REJECTED` reply for an engine refusal.
    public static func rejection(_ rejection: Rejection, requestID: UInt64, term: UInt64,
                                 sender: String = coordinatorSender) -> Self {
        .error(Camsync_V1_Error(rejection), requestID: requestID, term: term, sender: sender)
    }

    /// An error reply for bytes or content that could not be decoded.
    public static func error(_ error: WireError, requestID: UInt64, term: UInt64,
                             sender: String = coordinatorSender) -> Self {
        .error(Camsync_V1_Error(error), requestID: requestID, term: term, sender: sender)
    }

    /// The reply to a snapshot request.
    public static func snapshot(_ state: ClusterState, sequence: UInt64, term: UInt64, requestID: UInt64,
                                settings: PolicySettings, sender: String = coordinatorSender) -> Self {
        var snapshot = Camsync_V1_Snapshot(sequence: sequence, term: term, state: state)
        snapshot.settings = Camsync_V1_PolicySettings(settings)
        return Self(sender: sender, requestID: requestID, term: term, body: .snapshot(snapshot))
    }

    // MARK: Published (coordinator PUB → nodes)

    /// One accepted command and its events; the envelope's term is the batch's.
    public static func eventBatch(_ batch: Camsync_V1_EventBatch, sender: String = coordinatorSender) -> Self {
        Self(sender: sender, term: batch.term, body: .eventBatch(batch))
    }

    /// `eventBatch(batch).serializedBytes()` from `encodedBatch`, the batch's own encoding, without
    /// encoding the batch again: the header fields (`protocol_version` 1, `sender` 2, `term` 4, each
    /// left out at its default as proto3 does; no `request_id`), then `event_batch` (30) holding the
    /// bytes. Protobuf writes fields in number order, so the two agree byte for byte (`EnvelopeTests`).
    public static func encodedEventBatch(_ encodedBatch: [UInt8], term: UInt64, sender: String = coordinatorSender) -> [UInt8] {
        let senderBytes = sender.utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32 + senderBytes.count + encodedBatch.count)
        ProtobufWire.writeVarint(1 << 3 | 0, to: &bytes)
        ProtobufWire.writeVarint(UInt64(WireProtocol.version), to: &bytes)
        if !senderBytes.isEmpty {
            ProtobufWire.writeVarint(2 << 3 | 2, to: &bytes)
            ProtobufWire.writeVarint(UInt64(senderBytes.count), to: &bytes)
            bytes += senderBytes
        }
        if term != 0 {
            ProtobufWire.writeVarint(4 << 3 | 0, to: &bytes)
            ProtobufWire.writeVarint(term, to: &bytes)
        }
        ProtobufWire.writeVarint(30 << 3 | 2, to: &bytes)
        ProtobufWire.writeVarint(UInt64(encodedBatch.count), to: &bytes)
        bytes += encodedBatch
        return bytes
    }

    /// The coordinator's heartbeat (K1, K3).
    public static func coordinatorHeartbeat(term: UInt64, lastSequence: UInt64, time: Instant,
                                            sender: String = coordinatorSender) -> Self {
        Self(sender: sender, term: term,
             body: .coordinatorHeartbeat(Camsync_V1_CoordinatorHeartbeat(term: term, lastSequence: lastSequence, time: time)))
    }

    // MARK: Bytes

    /// The protobuf encoding. Deterministic for the same message: camsync.v1 has no maps.
    public func serializedBytes() -> [UInt8] {
        do {
            return try protobufBytes(self)
        } catch {
            // proto3 without required fields, Any or extensions: swift-protobuf cannot fail here.
            preconditionFailure("camsync.v1 Envelope failed to encode: \(error)")
        }
    }

    /// Decodes bytes from a peer. Throws `.malformed` for bytes that are not an Envelope,
    /// `.unsupportedVersion` unless `protocol_version == WireProtocol.version`, and
    /// `.invalid` when no body is set. Never crashes on hostile input (swift-protobuf
    /// validates lengths, UTF-8 and nesting depth).
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> Self {
        let envelope: Self
        do {
            envelope = try Self(serializedBytes: bytes)
        } catch {
            throw .malformed(String(describing: error))
        }
        guard envelope.protocolVersion == WireProtocol.version else {
            throw .unsupportedVersion(envelope.protocolVersion)
        }
        guard envelope.body != nil else {
            throw .invalid(WireMappingError("body", .unsetOneof(envelope.unknownFields.data)))
        }
        return envelope
    }

    /// The `request_id` of a frame, read from as much of it as parses (a frame that does not decode
    /// may still carry it before the bad part); 0 when it cannot be read. Error replies echo it.
    public static func requestID(salvagedFrom bytes: [UInt8]) -> UInt64 {
        var requestID: UInt64 = 0
        for field in ProtobufWire.parsePrefix(bytes, depth: 0).fields where field.number == 3 {
            if case .varint(let value) = field.value { requestID = value }
        }
        return requestID
    }

    /// The domain command of a request envelope; field paths start at `command`.
    public func domainCommand() throws(WireMappingError) -> Command {
        guard case .command(let command)? = body else { throw WireMappingError("command", .missing) }
        return try within("command") { () throws(WireMappingError) in try Command(wire: command) }
    }
}

/// swift-protobuf's own encoder (in a generic context our non-throwing overload is not visible).
func protobufBytes<M: SwiftProtobuf.Message>(_ message: M) throws -> [UInt8] {
    try message.serializedBytes()
}
