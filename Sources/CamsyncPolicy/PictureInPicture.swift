/// AVPictureInPictureController flavours (seed 001, 004).
public enum PiPKind: String, Hashable, Codable, Sendable, CaseIterable {
    case playback
    case videoCall
}

/// How a PiP controller is set up by its app.
public struct PiPControllerSetup: Hashable, Codable, Sendable {
    public var kind: PiPKind
    public var hasContentSource: Bool
    public var canStartAutomaticallyFromInline: Bool
    /// P3: the app's playing video fills its window (then PiP starts automatically too).
    public var playingVideoFillsWindow: Bool

    public init(kind: PiPKind, hasContentSource: Bool = true, canStartAutomaticallyFromInline: Bool = false,
                playingVideoFillsWindow: Bool = false) {
        self.kind = kind
        self.hasContentSource = hasContentSource
        self.canStartAutomaticallyFromInline = canStartAutomaticallyFromInline
        self.playingVideoFillsWindow = playingVideoFillsWindow
    }
}

/// The PiP window of an app (SPEC §1).
public enum PiPWindowState: Hashable, Codable, Sendable {
    case inactive
    case active(screen: NodeID, frame: Frame, stashed: Bool)
    /// Paused and off screen because another PiP started (P4).
    case suspended
}

/// Who asked for a PiP start (P2).
public enum PiPStartTrigger: String, Hashable, Codable, Sendable, CaseIterable {
    case user
    case programmatic
}

/// Why a PiP start failed (P1, P2, P4).
public enum PiPFailureReason: String, Hashable, Codable, Sendable, CaseIterable {
    case deviceUnsupported
    case missingBackgroundMode
    case audioSessionCategory
    case noContentSource
    case notVisible
    case programmaticStart
    case videoCallActive
    case noController
}
