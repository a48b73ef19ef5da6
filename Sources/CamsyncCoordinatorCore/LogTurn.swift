import CamsyncWire

/// How one turn of the HA command log is stored in its etcd value: a `Replay` message (the turn's
/// batches as published, field 1; its last sequence, field 2) deflated in zlib's format (`Deflate`,
/// RFC 1950). A turn's batches repeat the same node, app and camera names, so the value is about a
/// sixth of the message, and etcd, the leader's and every standby's connection carry a sixth of the
/// bytes (docs/PERFORMANCE.md).
///
/// Readers tell the two forms apart by the first byte: a zlib stream's names its method, deflate, in
/// its low four bits (8; 0x78 for the usual 32 KiB window), which no `Replay` field's tag has (0x0A,
/// 0x10), so a log written before turns were deflated stays readable (an empty value is an empty turn).
public enum LogTurn {
    /// The etcd value of a turn whose `Replay` encoding is `replay`.
    public static func value(replay: [UInt8]) -> [UInt8] {
        Deflate.compress(replay)
    }

    /// The `Replay` encoding of the turn stored in `value`.
    public static func replay(_ value: [UInt8]) throws -> [UInt8] {
        guard let first = value.first, first & 0x0F == 8 else { return value }
        do {
            return try Deflate.decompress(value[...], limit: largestReplay)
        } catch {
            throw LoggedBatch.UnreadableTurn(reason: error.description)
        }
    }

    /// The most bytes a deflated turn may inflate to: a bound against a damaged value, far above
    /// what a leader writes (turns are split at `EtcdCommandLog.maximumPutBytes`, 1 MiB).
    static let largestReplay = 16 << 20
}
