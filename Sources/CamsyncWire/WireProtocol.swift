/// Facts about the v1 wire protocol shared by every peer.
public enum WireProtocol {
    /// The protocol version every envelope carries. A peer answers a different
    /// version with an `ERROR_CODE_UNSUPPORTED_VERSION` error reply.
    public static let version: UInt32 = 1
}
