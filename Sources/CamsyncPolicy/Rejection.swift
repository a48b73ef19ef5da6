/// Why a command was refused. State is unchanged by a refused command.
public struct Rejection: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Codable, Sendable, CaseIterable {
        case unknownNode
        case unknownApp
        case unknownCamera
        case nodeNotAlive
        case wrongNodeKind
        case alreadyExists
        /// L4: split, slide over or stage window for a `requiresFullScreen` app.
        case requiresFullScreen
        case stageManagerOff
        case stageWindowLimit
        case displayNotAttached
        /// C3: enabling multitasking camera access where it is not supported.
        case multitaskingCameraAccessUnsupported
        /// C9: a configuration whose hardware cost exceeds 1.0.
        case hardwareCostExceeded
        case noSession
        case sessionNotRunning
        case cameraNotUsable
        /// P1, P4: PiP is not possible for this app now.
        case pipNotPossible
        /// P2: a programmatic PiP start.
        case pipProgrammaticStart
        case noPiPController
        case pipNotActive
        case invalidArgument
        case illegalState
        /// A1: a category / option pair AVAudioSession refuses.
        case incompatibleCategoryOptions
        /// A2: a non-mixable activation while the app is not visible (AVAudioSession's `cannotInterruptOthers`).
        case cannotInterruptOthers
        /// A8: audio from background without the audio background mode and a playback / playAndRecord
        /// category (AVAudioSession's `cannotStartPlaying`).
        case cannotStartPlaying
        /// C11, C12: a capture graph the device's OS cannot run (several video data outputs, or a
        /// movie file output with data outputs, before iPadOS 16).
        case captureGraphUnsupported
        /// C14: a MultiCam session the device cannot run (no MultiCam on the model, a camera of
        /// another system, the LiDAR Depth Camera with the back wide-angle camera).
        case multiCamUnsupported
    }

    public var code: Code
    public var message: String
    /// For PiP start refusals, the `failedToStart` reason the app sees (P1, P2).
    public var pipFailure: PiPFailureReason?

    public init(_ code: Code, _ message: String, pipFailure: PiPFailureReason? = nil) {
        self.code = code
        self.message = message
        self.pipFailure = pipFailure
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
