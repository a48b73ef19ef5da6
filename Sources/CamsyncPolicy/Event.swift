/// Why a node left the cluster.
public enum NodeLeaveReason: String, Hashable, Codable, Sendable, CaseIterable {
    case unregistered
    /// Declared dead by the liveness check (K1).
    case declaredDead
}

/// Why an app stopped running.
public enum TerminationReason: String, Hashable, Codable, Sendable, CaseIterable {
    case user
    /// Above the backgroundMedia memory limit (P9).
    case memoryLimit
    /// Its device was declared dead or unregistered (K1).
    case deviceGone
}

/// Warnings the cluster reports (R2, P7).
public enum WarningKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// R2: multitasking camera access with a 4K, ProRAW or Deep Fusion configuration.
    case multitaskingCameraAccessNotRecommended
    /// P7: the PiP controller was released while PiP was active.
    case pipControllerReleasedWhileActive
    /// P7: the content source was cleared while PiP was active.
    case pipContentSourceClearedWhileActive
}

/// Everything the engine reports. The order of events a command produces is part of
/// the engine's contract: replay gives the same events in the same order.
public enum Event: Hashable, Codable, Sendable {
    // Nodes and displays
    case nodeJoined(NodeID, NodeKind)
    case nodeRejoined(NodeID, NodeKind)
    case nodeLeft(NodeID, NodeLeaveReason)
    case displayAttached(display: NodeID, device: NodeID)
    case displayDetached(display: NodeID, device: NodeID)
    case deviceSettingsChanged(NodeID)

    // Apps and layout
    case appInstalled(AppID)
    case sceneChanged(AppID, from: Scene, to: Scene)
    case roleChanged(AppID, Role?)
    case appTerminated(AppID, TerminationReason)

    // Capture sessions (C7)
    case sessionConfigured(AppID, hardwareCost: Double, multitaskingCameraAccessSupported: Bool)
    case sessionStarted(AppID)
    case sessionStopped(AppID)
    case sessionWasInterrupted(AppID, InterruptionReason)
    case sessionInterruptionEnded(AppID)
    /// C10: the camera's host left or the display detached; the session stopped.
    case sessionCameraDisconnected(AppID, CameraID)

    // Camera grants (C8)
    case cameraGranted(CameraSystemID, AppID, GrantToken)
    case cameraReleased(CameraSystemID, AppID)

    // Pressure (S1–S3)
    case pressureChanged(CameraSystemID, SystemPressureLevel)
    case throttleAdvised(CameraSystemID, AppID, maxFrameRate: Int)

    // Recording (R1)
    case recordingStarted(AppID, RecordingOutput)
    case recordingFinished(AppID, RecordingOutput, multitaskedDuringRecording: Bool)
    case recordingQualityAlert(device: NodeID, app: AppID)

    // Warnings (R2, P7)
    case warning(AppID, WarningKind)

    // Picture in Picture (P1–P9)
    case pipControllerChanged(AppID)
    case pipDidStart(AppID, screen: NodeID, frame: Frame)
    case pipDidStop(AppID)
    case pipSuspended(AppID)
    case pipResumed(AppID)
    case pipStashed(AppID)
    case pipUnstashed(AppID)
    case pipMoved(AppID, screen: NodeID, frame: Frame)
    case pipRestoreUserInterface(AppID)
    case pipRestoreFinished(AppID, restored: Bool)

    // Audio sessions (A1–A8)
    /// A1: the app set its category and options (as AVAudioSession keeps them).
    case audioSessionConfigured(AppID, AudioSessionConfiguration)
    case audioSessionActivated(AppID)
    case audioSessionDeactivated(AppID)
    /// A3 (`default`) or A8 (`appWasSuspended`): the session became inactive.
    case audioInterruptionBegan(AppID, AudioInterruptionReason)
    /// A6: the session that interrupted this one ended; the app may reactivate by itself.
    case audioInterruptionEnded(AppID, shouldResume: Bool)
    /// A4: another app's active `duckOthers` session lowers this one.
    case audioDuckingBegan(AppID)
    case audioDuckingEnded(AppID)
    /// A5: `secondaryAudioShouldBeSilencedHint` became true / false for the app.
    case secondaryAudioSilenceHintBegan(AppID)
    case secondaryAudioSilenceHintEnded(AppID)
}
