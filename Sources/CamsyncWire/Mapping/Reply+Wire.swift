public import CamsyncPolicy

// MARK: - Rejection.Code ↔ RejectionCode

extension Camsync_V1_RejectionCode {
    public init(_ code: Rejection.Code) {
        switch code {
        case .unknownNode: self = .unknownNode
        case .unknownApp: self = .unknownApp
        case .unknownCamera: self = .unknownCamera
        case .nodeNotAlive: self = .nodeNotAlive
        case .wrongNodeKind: self = .wrongNodeKind
        case .alreadyExists: self = .alreadyExists
        case .requiresFullScreen: self = .requiresFullScreen
        case .stageManagerOff: self = .stageManagerOff
        case .stageWindowLimit: self = .stageWindowLimit
        case .displayNotAttached: self = .displayNotAttached
        case .multitaskingCameraAccessUnsupported: self = .multitaskingCameraAccessUnsupported
        case .hardwareCostExceeded: self = .hardwareCostExceeded
        case .noSession: self = .noSession
        case .sessionNotRunning: self = .sessionNotRunning
        case .cameraNotUsable: self = .cameraNotUsable
        case .pipNotPossible: self = .pipNotPossible
        case .pipProgrammaticStart: self = .pipProgrammaticStart
        case .noPiPController: self = .noPipController
        case .pipNotActive: self = .pipNotActive
        case .invalidArgument: self = .invalidArgument
        case .illegalState: self = .illegalState
        case .incompatibleCategoryOptions: self = .incompatibleCategoryOptions
        case .cannotInterruptOthers: self = .cannotInterruptOthers
        case .cannotStartPlaying: self = .cannotStartPlaying
        case .captureGraphUnsupported: self = .captureGraphUnsupported
        case .multiCamUnsupported: self = .multiCamUnsupported
        }
    }
}

extension Rejection.Code {
    public init(wire: Camsync_V1_RejectionCode, field: String = "rejection") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .unknownNode: .unknownNode
            case .unknownApp: .unknownApp
            case .unknownCamera: .unknownCamera
            case .nodeNotAlive: .nodeNotAlive
            case .wrongNodeKind: .wrongNodeKind
            case .alreadyExists: .alreadyExists
            case .requiresFullScreen: .requiresFullScreen
            case .stageManagerOff: .stageManagerOff
            case .stageWindowLimit: .stageWindowLimit
            case .displayNotAttached: .displayNotAttached
            case .multitaskingCameraAccessUnsupported: .multitaskingCameraAccessUnsupported
            case .hardwareCostExceeded: .hardwareCostExceeded
            case .noSession: .noSession
            case .sessionNotRunning: .sessionNotRunning
            case .cameraNotUsable: .cameraNotUsable
            case .pipNotPossible: .pipNotPossible
            case .pipProgrammaticStart: .pipProgrammaticStart
            case .noPipController: .noPiPController
            case .pipNotActive: .pipNotActive
            case .invalidArgument: .invalidArgument
            case .illegalState: .illegalState
            case .incompatibleCategoryOptions: .incompatibleCategoryOptions
            case .cannotInterruptOthers: .cannotInterruptOthers
            case .cannotStartPlaying: .cannotStartPlaying
            case .captureGraphUnsupported: .captureGraphUnsupported
            case .multiCamUnsupported: .multiCamUnsupported
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

// MARK: - Rejection ↔ Error

extension Camsync_V1_Error {
    /// The reply for an engine refusal: `ERROR_CODE_REJECTED` with the rejection code,
    /// its message and, for PiP start refusals, the failure reason.
    public init(_ rejection: Rejection) {
        self.init()
        code = .rejected
        self.rejection = Camsync_V1_RejectionCode(rejection.code)
        message = rejection.message
        if let failure = rejection.pipFailure { pipFailure = Camsync_V1_PipFailureReason(failure) }
    }
}

extension Rejection {
    /// The engine refusal an `ERROR_CODE_REJECTED` reply carries. Any other code, an
    /// UNSPECIFIED/unknown rejection, or an unknown pip_failure value is an error.
    public init(wire: Camsync_V1_Error) throws(WireMappingError) {
        guard wire.code == .rejected else {
            throw WireMappingError("code", .inconsistent("\(wire.code) is not ERROR_CODE_REJECTED"))
        }
        self.init(
            try Rejection.Code(wire: wire.rejection),
            wire.message,
            pipFailure: wire.pipFailure == .unspecified ? nil : try PiPFailureReason(wire: wire.pipFailure)
        )
    }
}

extension Camsync_V1_Ack {
    public init(sequence: UInt64) {
        self.init()
        self.sequence = sequence
    }
}
