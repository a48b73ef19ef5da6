public import CamsyncPolicy

// MARK: - Enums (P1–P4)

extension Camsync_V1_PipKind {
    public init(_ value: PiPKind) {
        switch value {
        case .playback: self = .playback
        case .videoCall: self = .videoCall
        }
    }
}

extension PiPKind {
    public init(wire: Camsync_V1_PipKind, field: String = "kind") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .playback: .playback
            case .videoCall: .videoCall
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_PipStartTrigger {
    public init(_ value: PiPStartTrigger) {
        switch value {
        case .user: self = .user
        case .programmatic: self = .programmatic
        }
    }
}

extension PiPStartTrigger {
    public init(wire: Camsync_V1_PipStartTrigger, field: String = "trigger") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .user: .user
            case .programmatic: .programmatic
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_PipFailureReason {
    public init(_ value: PiPFailureReason) {
        switch value {
        case .deviceUnsupported: self = .deviceUnsupported
        case .missingBackgroundMode: self = .missingBackgroundMode
        case .audioSessionCategory: self = .audioSessionCategory
        case .noContentSource: self = .noContentSource
        case .notVisible: self = .notVisible
        case .programmaticStart: self = .programmaticStart
        case .videoCallActive: self = .videoCallActive
        case .noController: self = .noController
        }
    }
}

extension PiPFailureReason {
    public init(wire: Camsync_V1_PipFailureReason, field: String = "pip_failure") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .deviceUnsupported: .deviceUnsupported
            case .missingBackgroundMode: .missingBackgroundMode
            case .audioSessionCategory: .audioSessionCategory
            case .noContentSource: .noContentSource
            case .notVisible: .notVisible
            case .programmaticStart: .programmaticStart
            case .videoCallActive: .videoCallActive
            case .noController: .noController
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

// MARK: - PiPControllerSetup

extension Camsync_V1_PipControllerSetup {
    public init(_ setup: PiPControllerSetup) {
        self.init()
        kind = Camsync_V1_PipKind(setup.kind)
        contentSourceSet = setup.hasContentSource
        canStartAutomaticallyFromInline = setup.canStartAutomaticallyFromInline
        playingVideoFillsWindow = setup.playingVideoFillsWindow
    }
}

extension PiPControllerSetup {
    /// `kind` specified.
    public init(wire: Camsync_V1_PipControllerSetup) throws(WireMappingError) {
        self.init(
            kind: try PiPKind(wire: wire.kind),
            hasContentSource: wire.contentSourceSet,
            canStartAutomaticallyFromInline: wire.canStartAutomaticallyFromInline,
            playingVideoFillsWindow: wire.playingVideoFillsWindow
        )
    }
}

/// A required `PipControllerSetup` message field.
func requirePipSetup(_ has: Bool, _ value: Camsync_V1_PipControllerSetup, _ field: String) throws(WireMappingError) -> PiPControllerSetup {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try PiPControllerSetup(wire: value) }
}

// MARK: - PiPWindowState

extension Camsync_V1_PipWindowState {
    public init(_ state: PiPWindowState) {
        self.init()
        switch state {
        case .inactive: kind = .inactive
        case .active(let screen, let frame, let stashed):
            kind = .active
            self.screen = screen.rawValue
            self.frame = Camsync_V1_Frame(frame)
            self.stashed = stashed
        case .suspended: kind = .suspended
        }
    }
}

extension PiPWindowState {
    /// `kind` specified; `screen` (non-empty) and `frame` present, and `stashed` possibly
    /// true, if and only if kind is ACTIVE.
    public init(wire: Camsync_V1_PipWindowState) throws(WireMappingError) {
        switch wire.kind {
        case .active:
            self = .active(screen: try nodeID(wire.screen, "screen"), frame: try requireFrame(wire.hasFrame, wire.frame, "frame"),
                           stashed: wire.stashed)
            return
        case .inactive, .suspended: break
        case .unspecified: throw WireMappingError("kind", .unspecified)
        case .UNRECOGNIZED(let n): throw WireMappingError("kind", .unrecognized(n))
        }
        if !wire.screen.isEmpty { throw WireMappingError("screen", .inconsistent("set on a window of kind \(wire.kind)")) }
        if wire.hasFrame { throw WireMappingError("frame", .inconsistent("set on a window of kind \(wire.kind)")) }
        if wire.stashed { throw WireMappingError("stashed", .inconsistent("set on a window of kind \(wire.kind)")) }
        self = wire.kind == .inactive ? .inactive : .suspended
    }
}
