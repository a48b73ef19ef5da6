public import CamsyncWire

extension CoordinatorErrorCode {
    /// The wire's `ErrorCode` for this refusal.
    public var wire: Camsync_V1_ErrorCode {
        switch self {
        case .unsupportedVersion: .unsupportedVersion
        case .malformed: .malformed
        case .unknownNode: .unknownNode
        case .forbidden: .forbidden
        case .rejected: .rejected
        case .notRegistered: .notRegistered
        case .overloaded: .overloaded
        case .internal: .internal
        }
    }
}
