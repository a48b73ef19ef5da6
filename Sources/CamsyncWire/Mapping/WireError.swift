/// Everything that can go wrong turning bytes from a peer into something to act on.
/// Each case has a stable `code` that the shells put in the `Error` reply they send.
public enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a valid `Envelope` (truncated, garbage, too deeply nested…).
    case malformed(String)
    /// `Envelope.protocol_version` is not `WireProtocol.version` (0 = missing).
    case unsupportedVersion(UInt32)
    /// A well-formed message whose content breaks the schema's rules.
    case invalid(WireMappingError)

    /// The stable error code to answer with.
    public var code: Camsync_V1_ErrorCode {
        switch self {
        case .malformed, .invalid: .malformed
        case .unsupportedVersion: .unsupportedVersion
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "malformed envelope: \(why)"
        case .unsupportedVersion(let v): "unsupported protocol version \(v) (this peer speaks \(WireProtocol.version): "
            + "a node's feed comes on its command connection, docs/PROTOCOL.md \"The feed\")"
        case .invalid(let error): "invalid message: \(error)"
        }
    }
}

extension WireMappingError {
    /// The stable error code to answer with: always `ERROR_CODE_MALFORMED`.
    public var code: Camsync_V1_ErrorCode { .malformed }
}

extension Camsync_V1_Error {
    /// An error reply for a wire problem (code + human-readable message).
    public init(_ error: WireError) {
        self.init()
        code = error.code
        message = error.description
    }

    /// An error reply for a mapping problem (`ERROR_CODE_MALFORMED`).
    public init(_ error: WireMappingError) {
        self.init(WireError.invalid(error))
    }

    /// An error reply with any code and message (FORBIDDEN, UNKNOWN_NODE, OVERLOADED, …).
    public init(code: Camsync_V1_ErrorCode, message: String) {
        self.init()
        self.code = code
        self.message = message
    }
}
