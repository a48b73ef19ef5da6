/// AVCaptureSession.InterruptionReason with AVFoundation's raw values (SPEC §3 table).
public enum InterruptionReason: Int, Hashable, Codable, Sendable, CaseIterable, CustomStringConvertible {
    case videoDeviceNotAvailableInBackground = 1
    case audioDeviceInUseByAnotherClient = 2
    case videoDeviceInUseByAnotherClient = 3
    case videoDeviceNotAvailableWithMultipleForegroundApps = 4
    case videoDeviceNotAvailableDueToSystemPressure = 5

    public var description: String {
        switch self {
        case .videoDeviceNotAvailableInBackground: "videoDeviceNotAvailableInBackground"
        case .audioDeviceInUseByAnotherClient: "audioDeviceInUseByAnotherClient"
        case .videoDeviceInUseByAnotherClient: "videoDeviceInUseByAnotherClient"
        case .videoDeviceNotAvailableWithMultipleForegroundApps: "videoDeviceNotAvailableWithMultipleForegroundApps"
        case .videoDeviceNotAvailableDueToSystemPressure: "videoDeviceNotAvailableDueToSystemPressure"
        }
    }
}

/// Capture resolutions that matter to cost (C9) and warnings (R2).
public enum CaptureResolution: String, Hashable, Codable, Sendable, CaseIterable {
    case vga
    case hd720
    case hd1080
    case uhd4K
}

/// Capture outputs a session can have (AVCaptureVideoDataOutput, AVCapturePhotoOutput,
/// AVCaptureMovieFileOutput, AVAssetWriter, AVCaptureDepthDataOutput, AVCaptureMetadataOutput,
/// AVCaptureAudioDataOutput). `videoData` may be listed once per video data output (C11).
public enum CaptureOutput: String, Hashable, Codable, Sendable, CaseIterable {
    case videoData
    case photo
    case movieFile
    case assetWriter
    case depthData
    case metadata
    /// AVCaptureAudioDataOutput: needs the microphone as an input (`audioInput`) (C12).
    case audioData
}

/// A capture session's configuration (SPEC §1 "Capture session").
public struct SessionConfiguration: Hashable, Codable, Sendable {
    public var camera: CameraID
    public var multitaskingCameraAccessEnabled: Bool
    public var outputs: [CaptureOutput]
    public var resolution: CaptureResolution
    public var proRAW: Bool
    public var deepFusion: Bool
    public var frameRate: Int
    /// An explicit hardware cost (C9); `nil` lets the engine's documented cost model compute it.
    public var hardwareCost: Double?
    /// The session has the microphone as an input (A7: it waits while another app holds the microphone).
    public var audioInput: Bool
    /// C11: the resolution each video data output delivers, in the order of the `videoData` entries
    /// of `outputs`. Empty: every video data output delivers the session's `resolution`.
    public var videoDataResolutions: [CaptureResolution]
    /// C13: the session is run by ARKit (an ARSession), which never has multitasking camera access.
    public var runByARKit: Bool
    /// C14: further cameras of the same camera system used at once (AVCaptureMultiCamSession).
    public var additionalCameras: [CameraID]

    public init(
        camera: CameraID, multitaskingCameraAccessEnabled: Bool = false, outputs: [CaptureOutput] = [.videoData],
        resolution: CaptureResolution = .hd1080, proRAW: Bool = false, deepFusion: Bool = false,
        frameRate: Int = 30, hardwareCost: Double? = nil, audioInput: Bool = false,
        videoDataResolutions: [CaptureResolution] = [], runByARKit: Bool = false, additionalCameras: [CameraID] = []
    ) {
        self.audioInput = audioInput
        self.videoDataResolutions = videoDataResolutions
        self.runByARKit = runByARKit
        self.additionalCameras = additionalCameras
        self.camera = camera
        self.multitaskingCameraAccessEnabled = multitaskingCameraAccessEnabled
        self.outputs = outputs
        self.resolution = resolution
        self.proRAW = proRAW
        self.deepFusion = deepFusion
        self.frameRate = frameRate
        self.hardwareCost = hardwareCost
    }
}

/// A capture session's observable state (SPEC §1).
public enum SessionState: Hashable, Codable, Sendable {
    case running
    case interrupted(InterruptionReason)
    case stopped
}

/// Which kind of recording output finished (R1).
public enum RecordingOutput: String, Hashable, Codable, Sendable, CaseIterable {
    case movieFile
    case assetWriter
}

/// System pressure levels of a camera system, in order (S1).
public enum SystemPressureLevel: Int, Hashable, Codable, Comparable, Sendable, CaseIterable {
    case nominal = 1
    case fair = 2
    case serious = 3
    case critical = 4
    case shutdown = 5
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
