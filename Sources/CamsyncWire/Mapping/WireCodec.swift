public import CamsyncPolicy
internal import SwiftProtobuf

/// Bytes for what the coordinator stores: journaled commands and state snapshots (K3).
/// The same encodings as on the wire, so a journal can be read by any protobuf client.
public enum WireCodec {
    public static func encode(_ command: Command) -> [UInt8] {
        encodeMessage(Camsync_V1_Command(command))
    }

    public static func encode(_ command: Camsync_V1_Command) -> [UInt8] {
        encodeMessage(command)
    }

    /// A published batch, as the journal keeps it for replays.
    public static func encode(_ batch: Camsync_V1_EventBatch) -> [UInt8] {
        encodeMessage(batch)
    }

    /// The command of an encoded `EventBatch` (its field 6) as the journal keeps it, cut out of the
    /// batch's bytes rather than encoded a second time; nil when the batch has none.
    public static func command(ofEncodedBatch bytes: [UInt8]) -> [UInt8]? {
        ProtobufWire.lengthDelimited(6, in: bytes).map(Array.init)
    }

    public static func decodeCommand(_ bytes: [UInt8]) throws -> Command {
        try Command(wire: Camsync_V1_Command(serializedBytes: bytes))
    }

    public static func encode(_ state: ClusterState) -> [UInt8] {
        encodeMessage(Camsync_V1_ClusterState(state))
    }

    public static func decodeState(_ bytes: [UInt8]) throws -> ClusterState {
        try ClusterState(wire: Camsync_V1_ClusterState(serializedBytes: bytes))
    }

    /// A state as snapshots keep it: with each device group's last sequence.
    public static func encode(_ state: ClusterState, groupSequences: GroupSequences) -> [UInt8] {
        var wire = Camsync_V1_ClusterState(state)
        wire.groupSequences = groupSequences.wire
        return encodeMessage(wire)
    }

    /// A snapshot's state and its device groups' last sequences.
    public static func decodeSnapshotState(_ bytes: [UInt8]) throws -> (ClusterState, GroupSequences) {
        let wire = try Camsync_V1_ClusterState(serializedBytes: bytes)
        return (try ClusterState(wire: wire), try GroupSequences(wire: wire.groupSequences))
    }

    static func encodeMessage<M: SwiftProtobuf.Message>(_ message: M) -> [UInt8] {
        do {
            return try message.serializedBytes()
        } catch {
            // proto3 without required fields, Any or extensions cannot fail to encode.
            preconditionFailure("camsync.v1 \(M.protoMessageName) failed to encode: \(error)")
        }
    }
}
