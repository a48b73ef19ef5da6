/// FNV-1a, 64 bits: a hash of bytes that is the same in every process and every run (Swift's own
/// `Hasher` is seeded per process). For what must be reproducible: a node's heartbeat slot, its
/// back-off, a simulation's trace, a benchmark node's key.
public struct FNV1a: Sendable, Equatable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func mix(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    public mutating func mix(_ string: String) {
        for byte in string.utf8 { mix(byte) }
    }

    /// The hash of `string`'s UTF-8 bytes.
    public static func hash(_ string: String) -> UInt64 {
        var hash = FNV1a()
        hash.mix(string)
        return hash.value
    }
}
