public import CamsyncPolicy

extension Event {
    /// The event as a person reads it, in the verb table's and AVFoundation's words:
    /// `ipad-1/com.example.videocall wasInterrupted videoDeviceInUseByAnotherClient (3)`,
    /// `camera ipad-1/builtin granted to ipad-1/com.apple.camera, token 2`.
    public var words: String {
        switch self {
        case .nodeJoined(let node, let kind): "\(node) joined (\(kind))"
        case .nodeRejoined(let node, let kind): "\(node) rejoined (\(kind))"
        case .nodeLeft(let node, .declaredDead): "\(node) declared dead"
        case .nodeLeft(let node, .unregistered): "\(node) left"
        case .displayAttached(let display, let device): "\(display) attached to \(device)"
        case .displayDetached(let display, let device): "\(display) detached from \(device)"
        case .deviceSettingsChanged(let device): "\(device) settings changed"
        case .appInstalled(let app): "\(app) installed"
        case .sceneChanged(let app, let from, let to): "\(app) \(from.words) → \(to.words)"
        case .roleChanged(let app, let role): "\(app) role \(role.map(\.rawValue) ?? "none")"
        case .appTerminated(let app, let reason): "\(app) terminated (\(reason.words))"
        case .sessionConfigured(let app, let cost, let supported):
            "\(app) session configured, hardware cost \(cost), multitasking camera access \(supported ? "supported" : "not supported")"
        case .sessionStarted(let app): "\(app) session started"
        case .sessionStopped(let app): "\(app) session stopped"
        case .sessionWasInterrupted(let app, let reason): "\(app) wasInterrupted \(reason) (\(reason.rawValue))"
        case .sessionInterruptionEnded(let app): "\(app) interruptionEnded"
        case .sessionCameraDisconnected(let app, let camera): "\(app) cameraDisconnected \(camera), session stopped"
        case .cameraGranted(let system, let app, let token): "camera \(system) granted to \(app), token \(token.value)"
        case .cameraReleased(let system, let app): "camera \(system) released by \(app)"
        case .pressureChanged(let system, let level): "camera \(system) pressure \(level)"
        case .throttleAdvised(let system, let app, let fps): "camera \(system) pressure: \(app) advised to throttle to \(fps) fps"
        case .recordingStarted(let app, let output): "\(app) recording started (\(output.words))"
        case .recordingFinished(let app, let output, let multitasked):
            "\(app) recording finished (\(output.words))\(multitasked ? ", multitasked while recording" : "")"
        case .recordingQualityAlert(let device, let app): "\(device) shows the lower-quality recording alert (\(app.bundleID))"
        case .warning(let app, let kind): "\(app) warning \(kind)"
        case .pipControllerChanged(let app): "\(app) PiP controller changed"
        case .pipDidStart(let app, let screen, let frame): "\(app) PiP started on \(screen) at \(frame.words)"
        case .pipDidStop(let app): "\(app) PiP stopped"
        case .pipSuspended(let app): "\(app) PiP suspended"
        case .pipResumed(let app): "\(app) PiP resumed"
        case .pipStashed(let app): "\(app) PiP stashed"
        case .pipUnstashed(let app): "\(app) PiP unstashed"
        case .pipMoved(let app, let screen, let frame): "\(app) PiP moved to \(screen) at \(frame.words)"
        case .pipRestoreUserInterface(let app): "\(app) PiP restoreUserInterface"
        case .pipRestoreFinished(let app, let restored): "\(app) PiP restore finished, \(restored ? "restored" : "not restored")"
        case .audioSessionConfigured(let app, let configuration): "\(app) audio category \(configuration)"
        case .audioSessionActivated(let app): "\(app) audio session activated"
        case .audioSessionDeactivated(let app): "\(app) audio session deactivated"
        case .audioInterruptionBegan(let app, let reason): "\(app) audio interruption began (\(reason))"
        case .audioInterruptionEnded(let app, let shouldResume):
            "\(app) audio interruption ended, \(shouldResume ? "shouldResume" : "should not resume")"
        case .audioDuckingBegan(let app): "\(app) audio ducking began"
        case .audioDuckingEnded(let app): "\(app) audio ducking ended"
        case .secondaryAudioSilenceHintBegan(let app): "\(app) secondary audio silence hint began"
        case .secondaryAudioSilenceHintEnded(let app): "\(app) secondary audio silence hint ended"
        }
    }
}

extension TerminationReason {
    var words: String {
        switch self {
        case .user: "by the user"
        case .memoryLimit: "over the background media memory limit"
        case .deviceGone: "its device left"
        }
    }
}
