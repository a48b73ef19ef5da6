public import CamsyncPolicy

// MARK: - Enums (SPEC §1 "App", L1–L5, P3)

extension Camsync_V1_AudioSessionCategory {
    public init(_ value: AudioSessionCategory) {
        switch value {
        case .playback: self = .playback
        case .playAndRecord: self = .playAndRecord
        case .ambient: self = .ambient
        case .soloAmbient: self = .soloAmbient
        case .record: self = .record
        }
    }
}

extension AudioSessionCategory {
    public init(wire: Camsync_V1_AudioSessionCategory, field: String = "audio_session_category") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .playback: .playback
            case .playAndRecord: .playAndRecord
            case .ambient: .ambient
            case .soloAmbient: .soloAmbient
            case .record: .record
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_Role {
    public init(_ value: Role) {
        switch value {
        case .primary: self = .primary
        case .secondary: self = .secondary
        case .backgroundMedia: self = .backgroundMedia
        case .background: self = .background
        }
    }
}

extension Role {
    public init(wire: Camsync_V1_Role, field: String = "role") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .primary: .primary
            case .secondary: .secondary
            case .backgroundMedia: .backgroundMedia
            case .background: .background
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_SplitSide {
    public init(_ value: SplitSide) {
        switch value {
        case .left: self = .left
        case .right: self = .right
        }
    }
}

extension SplitSide {
    public init(wire: Camsync_V1_SplitSide, field: String = "side") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .left: .left
            case .right: .right
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_BackgroundCause {
    public init(_ value: BackgroundCause) {
        switch value {
        case .homeGesture: self = .homeGesture
        case .otherAppOpened: self = .otherAppOpened
        case .notificationTapped: self = .notificationTapped
        }
    }
}

extension BackgroundCause {
    public init(wire: Camsync_V1_BackgroundCause, field: String = "cause") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .homeGesture: .homeGesture
            case .otherAppOpened: .otherAppOpened
            case .notificationTapped: .notificationTapped
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_OpenTrigger {
    public init(_ value: OpenTrigger) {
        switch value {
        case .user: self = .user
        case .notification: self = .notification
        }
    }
}

extension OpenTrigger {
    public init(wire: Camsync_V1_OpenTrigger, field: String = "trigger") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .user: .user
            case .notification: .notification
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

// MARK: - AppSpec

extension Camsync_V1_AppSpec {
    public init(_ spec: AppSpec) {
        self.init()
        bundleID = spec.bundleID
        deploymentTarget = Int64(spec.deploymentTarget)
        multitaskingCameraAccessEntitlement = spec.hasMultitaskingCameraAccessEntitlement
        requiresFullScreen = spec.requiresFullScreen
        backgroundModeAudioAirplayPip = spec.backgroundModeAudioAirPlayPiP
        audioSessionCategory = Camsync_V1_AudioSessionCategory(spec.audioSessionCategory)
        isSystemCameraApp = spec.isSystemCameraApp
        memoryFootprintMb = Int64(spec.memoryFootprintMB)
    }
}

extension AppSpec {
    /// `bundle_id` non-empty, `audio_session_category` specified.
    public init(wire: Camsync_V1_AppSpec) throws(WireMappingError) {
        self.init(
            bundleID: try nonEmpty(wire.bundleID, "bundle_id"),
            deploymentTarget: Int(truncatingIfNeeded: wire.deploymentTarget),
            hasMultitaskingCameraAccessEntitlement: wire.multitaskingCameraAccessEntitlement,
            requiresFullScreen: wire.requiresFullScreen,
            backgroundModeAudioAirPlayPiP: wire.backgroundModeAudioAirplayPip,
            audioSessionCategory: try AudioSessionCategory(wire: wire.audioSessionCategory),
            isSystemCameraApp: wire.isSystemCameraApp,
            memoryFootprintMB: Int(truncatingIfNeeded: wire.memoryFootprintMb)
        )
    }
}

// MARK: - StageWindow, Scene

extension Camsync_V1_StageWindow {
    public init(_ window: StageWindow) {
        self.init()
        screen = window.screen.rawValue
        frame = Camsync_V1_Frame(window.frame)
    }
}

extension StageWindow {
    /// `screen` non-empty, `frame` present.
    public init(wire: Camsync_V1_StageWindow) throws(WireMappingError) {
        self.init(screen: try nodeID(wire.screen, "screen"), frame: try requireFrame(wire.hasFrame, wire.frame, "frame"))
    }
}

extension Camsync_V1_Scene {
    public init(_ scene: Scene) {
        self.init()
        switch scene {
        case .notRunning: kind = .notRunning
        case .fullScreen: kind = .fullScreen
        case .splitPrimary: kind = .splitPrimary
        case .splitSecondary: kind = .splitSecondary
        case .slideOver: kind = .slideOver
        case .stageWindow(let window):
            kind = .stageWindow
            stageWindow = Camsync_V1_StageWindow(window)
        case .background: kind = .background
        case .terminated: kind = .terminated
        }
    }
}

extension Scene {
    /// `kind` specified; `stage_window` present if and only if kind is STAGE_WINDOW.
    public init(wire: Camsync_V1_Scene) throws(WireMappingError) {
        let kind = wire.kind
        if kind != .stageWindow, wire.hasStageWindow {
            throw WireMappingError("stage_window", .inconsistent("set on a scene of kind \(kind)"))
        }
        switch kind {
        case .notRunning: self = .notRunning
        case .fullScreen: self = .fullScreen
        case .splitPrimary: self = .splitPrimary
        case .splitSecondary: self = .splitSecondary
        case .slideOver: self = .slideOver
        case .stageWindow:
            if !wire.hasStageWindow { throw WireMappingError("stage_window", .missing) }
            self = .stageWindow(try within("stage_window") { () throws(WireMappingError) in try StageWindow(wire: wire.stageWindow) })
        case .background: self = .background
        case .terminated: self = .terminated
        case .unspecified: throw WireMappingError("kind", .unspecified)
        case .UNRECOGNIZED(let n): throw WireMappingError("kind", .unrecognized(n))
        }
    }
}

/// A required `Scene` message field.
func requireScene(_ has: Bool, _ value: Camsync_V1_Scene, _ field: String) throws(WireMappingError) -> Scene {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try Scene(wire: value) }
}
