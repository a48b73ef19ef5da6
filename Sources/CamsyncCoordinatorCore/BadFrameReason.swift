public import CamsyncWire

/// Why a frame on the command socket could not be served (the `badFrame` counter's label, and the
/// reason `ctl status` prints). The raw values are stable: they are metric labels.
public enum BadFrameReason: String, Sendable, Hashable, CaseIterable {
    /// Not exactly one envelope after the routing id.
    case frames
    /// The envelope does not decode, or its body is unset.
    case malformed
    case unsupportedVersion
    /// The command inside a decoded envelope does not map to a domain command.
    case invalidCommand
    /// The sender is not who its key (or its name) says.
    case forbidden
    /// A connection holds a route that is not its key's node.
    case routingID
    /// A body the coordinator does not take (an ack, a batch …).
    case unexpectedMessage

    /// The reason for an envelope that did not decode.
    init(_ error: WireError) {
        self = error.code == .unsupportedVersion ? .unsupportedVersion : .malformed
    }
}
