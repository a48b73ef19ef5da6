import CamsyncWire

/// How the HA log's newest state snapshot is stored in its etcd value: a `Snapshot` message deflated
/// (`Deflate`). The whole state of ten thousand nodes is megabytes as a message, more than etcd takes
/// in one request (1.5 MiB by default), and its node, app and camera names repeat as a turn's do.
///
/// Readers tell the two forms apart by the first byte: 0x78 is zlib's header for the 32 KiB window
/// `Deflate` writes, and a `Snapshot` would need a field numbered 15 to begin so (it has eight), so a
/// snapshot written before they were deflated stays readable.
public enum LogSnapshot {
    /// The etcd value of a snapshot whose `Snapshot` encoding is `message`.
    public static func value(message: [UInt8]) -> [UInt8] {
        Deflate.compress(message)
    }

    /// The `Snapshot` encoding stored in `value`.
    public static func message(_ value: [UInt8]) throws -> [UInt8] {
        guard value.first == 0x78 else { return value }
        do {
            return try Deflate.decompress(value[...], limit: largestMessage)
        } catch {
            throw EtcdCommandLogError("an unreadable snapshot: \(error.description)")
        }
    }

    /// The most bytes a deflated snapshot may inflate to: a bound against a damaged value.
    static let largestMessage = 1 << 30
}
