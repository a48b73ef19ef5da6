/// Facts about the wire protocol shared by every peer.
public enum WireProtocol {
    /// The protocol version every envelope carries. A peer answers a different
    /// version with an `ERROR_CODE_UNSUPPORTED_VERSION` error reply. Version 2: a node's feed (its
    /// group's batches and bookmarks, the coordinator's heartbeats) comes on its command connection,
    /// not on the event socket (docs/PROTOCOL.md "The feed").
    public static let version: UInt32 = 2
}
