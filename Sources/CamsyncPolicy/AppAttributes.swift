/// AVAudioSession categories an app can use (SPEC §1, P1).
public enum AudioSessionCategory: String, Hashable, Codable, Sendable, CaseIterable {
    case playback
    case playAndRecord
    case ambient
    case soloAmbient
    case record
}

/// An installed app's attributes (SPEC §1 "App").
public struct AppSpec: Hashable, Codable, Sendable {
    public var bundleID: String
    /// Deployment target, OS major version (C3).
    public var deploymentTarget: Int
    /// `com.apple.developer.avfoundation.multitasking-camera-access` (C3).
    public var hasMultitaskingCameraAccessEntitlement: Bool
    /// `UIRequiresFullScreen` (L4).
    public var requiresFullScreen: Bool
    /// Background mode "Audio, AirPlay and Picture in Picture" (P1).
    public var backgroundModeAudioAirPlayPiP: Bool
    /// The category the app declares: its audio session starts with it (A1).
    public var audioSessionCategory: AudioSessionCategory
    /// Camera.app (seed 001: "Camera.app assumes control of the camera when it's opened").
    public var isSystemCameraApp: Bool
    /// The memory footprint the app reports, in megabytes (P9).
    public var memoryFootprintMB: Int

    public init(
        bundleID: String, deploymentTarget: Int = 16, hasMultitaskingCameraAccessEntitlement: Bool = false,
        requiresFullScreen: Bool = false, backgroundModeAudioAirPlayPiP: Bool = false,
        audioSessionCategory: AudioSessionCategory = .soloAmbient, isSystemCameraApp: Bool = false,
        memoryFootprintMB: Int = 100
    ) {
        self.bundleID = bundleID
        self.deploymentTarget = deploymentTarget
        self.hasMultitaskingCameraAccessEntitlement = hasMultitaskingCameraAccessEntitlement
        self.requiresFullScreen = requiresFullScreen
        self.backgroundModeAudioAirPlayPiP = backgroundModeAudioAirPlayPiP
        self.audioSessionCategory = audioSessionCategory
        self.isSystemCameraApp = isSystemCameraApp
        self.memoryFootprintMB = memoryFootprintMB
    }
}
