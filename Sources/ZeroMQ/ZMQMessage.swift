/// A complete (possibly multipart) message received from a socket, with the metadata
/// libzmq attached to it.
public struct ZMQMessage: Sendable, Hashable {
    /// The frames in order. On a ROUTER socket the first frame is the sender's routing id.
    public var frames: [[UInt8]]
    /// The "User-Id" property: the identity a ZAP handler assigned to the peer when it admitted
    /// the connection. With `ZAPAuthenticator` this is the peer's CURVE public key (Z85).
    /// `nil` when no ZAP handler authenticated the connection.
    public var userID: String?
    /// The "Peer-Address" property: the peer's IP address for TCP connections, else `nil`.
    public var peerAddress: String?
    /// The file descriptor of the connection the message came in on (libzmq's `ZMQ_SRCFD`), for
    /// `ZMQConnection.drop(descriptor:)`; `nil` for inproc and when libzmq does not say.
    public var connectionDescriptor: Int32?

    public init(frames: [[UInt8]], userID: String? = nil, peerAddress: String? = nil, connectionDescriptor: Int32? = nil) {
        self.frames = frames
        self.userID = userID
        self.peerAddress = peerAddress
        self.connectionDescriptor = connectionDescriptor
    }

    /// The frame at `index` decoded as UTF-8 (invalid bytes are repaired), or `nil` if there
    /// is no such frame.
    public func string(at index: Int) -> String? {
        guard frames.indices.contains(index) else { return nil }
        return String(decoding: frames[index], as: UTF8.self)
    }
}
