public import CamsyncPolicy

/// What an app on this node would see from the system: AVCaptureSession notifications,
/// AVPictureInPictureController delegate callbacks, AVAudioSession notifications, alerts and
/// warnings. Logged in a
/// stable, grep-able form: `app-event seq=42 app=com.example.call event=wasInterrupted reason=videoDeviceInUseByAnotherClient raw=3`.
public struct AppFacingEvent: Sendable, Equatable, CustomStringConvertible {
    public var sequence: UInt64
    public var app: AppID
    /// The callback name, in AVFoundation/AVKit words (`wasInterrupted`, `interruptionEnded`, `didStart`, …).
    public var name: String
    /// Extra `key=value` details in a fixed order.
    public var details: [(String, String)]

    public init(sequence: UInt64, app: AppID, name: String, details: [(String, String)] = []) {
        self.sequence = sequence
        self.app = app
        self.name = name
        self.details = details
    }

    public var description: String {
        var line = "app-event seq=\(sequence) app=\(app.bundleID) event=\(name)"
        for (key, value) in details { line += " \(key)=\(value)" }
        return line
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.sequence == b.sequence && a.app == b.app && a.name == b.name
            && a.details.map(\.0) == b.details.map(\.0) && a.details.map(\.1) == b.details.map(\.1)
    }

    /// The app-facing events in a batch for apps of `device`, in the batch's order.
    public static func from(_ events: [Event], sequence: UInt64, device: NodeID) -> [AppFacingEvent] {
        events.compactMap { event in
            guard let (app, name, details) = describe(event), app.device == device else { return nil }
            return AppFacingEvent(sequence: sequence, app: app, name: name, details: details)
        }
    }

    static func describe(_ event: Event) -> (AppID, String, [(String, String)])? {
        switch event {
        case .sessionStarted(let app): (app, "sessionDidStartRunning", [])
        case .sessionStopped(let app): (app, "sessionDidStopRunning", [])
        case .sessionWasInterrupted(let app, let reason):
            (app, "wasInterrupted", [("reason", reason.description), ("raw", String(reason.rawValue))])
        case .sessionInterruptionEnded(let app): (app, "interruptionEnded", [])
        case .sessionCameraDisconnected(let app, let camera): (app, "cameraDisconnected", [("camera", camera.description)])
        case .cameraGranted(let system, let app, let token): (app, "cameraGranted", [("system", system.description), ("token", String(token.value))])
        case .throttleAdvised(let system, let app, let rate): (app, "systemPressureAdvice", [("system", system.description), ("maxFrameRate", String(rate))])
        case .recordingFinished(let app, let output, let multitasked):
            (app, "recordingFinished", [("output", output.rawValue), ("multitasked", String(multitasked))])
        case .recordingQualityAlert(_, let app): (app, "recordingQualityAlert", [])
        case .warning(let app, let kind): (app, "warning", [("kind", kind.rawValue)])
        case .pipDidStart(let app, let screen, let frame): (app, "didStartPictureInPicture", [("screen", screen.rawValue), ("frame", frame.description)])
        case .pipDidStop(let app): (app, "didStopPictureInPicture", [])
        case .pipSuspended(let app): (app, "pictureInPictureSuspended", [])
        case .pipResumed(let app): (app, "pictureInPictureResumed", [])
        case .pipStashed(let app): (app, "pictureInPictureStashed", [])
        case .pipUnstashed(let app): (app, "pictureInPictureUnstashed", [])
        case .pipRestoreUserInterface(let app): (app, "restoreUserInterfaceForPictureInPictureStop", [])
        case .pipRestoreFinished(let app, let restored): (app, "restoreFinished", [("restored", String(restored))])
        case .appTerminated(let app, let reason): (app, "terminated", [("reason", reason.rawValue)])
        case .roleChanged(let app, let role): (app, "roleChanged", [("role", role?.rawValue ?? "none")])
        default: describeAudio(event)
        }
    }
}
