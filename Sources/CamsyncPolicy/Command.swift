/// Everything a node, the CLI or the coordinator itself can ask of the engine.
/// Commands are the journal: replaying them in order reproduces state exactly.
public enum Command: Hashable, Codable, Sendable {
    // Nodes (K1, K2)
    case registerNode(NodeRegistration)
    case unregisterNode(NodeID)
    /// Issued by the coordinator's liveness check (K1); in the log like every other command.
    case declareNodeDead(NodeID)

    // Displays (L3, C10)
    case attachDisplay(display: NodeID, device: NodeID)
    case detachDisplay(display: NodeID)

    // Device settings
    case setStageManager(device: NodeID, enabled: Bool)
    case setAutoPiP(device: NodeID, enabled: Bool)
    case setLayoutDirection(device: NodeID, LayoutDirection)

    // Apps and layout (L1–L6)
    case installApp(device: NodeID, AppSpec)
    case openFullScreen(AppID, trigger: OpenTrigger)
    case split(AppID, side: SplitSide)
    case slideOver(AppID)
    case stageOpen(AppID, StageWindow)
    case stageMove(AppID, StageWindow)
    case stageClose(AppID)
    case goHome(device: NodeID)
    case sendToBackground(AppID, cause: BackgroundCause)
    case terminate(AppID)
    case reportMemory(AppID, megabytes: Int)

    // Capture (C1–C10, R1, R2)
    case configureSession(AppID, SessionConfiguration)
    case startSession(AppID)
    case stopSession(AppID)
    case startRecording(AppID, RecordingOutput)
    case stopRecording(AppID)

    // Picture in Picture (P1–P9)
    case setupPiP(AppID, PiPControllerSetup)
    case setPiPContentSource(AppID, present: Bool)
    case releasePiP(AppID)
    case startPiP(AppID, trigger: PiPStartTrigger)
    case stashPiP(AppID)
    case unstashPiP(AppID)
    case movePiP(AppID, screen: NodeID, frame: Frame)
    case closePiP(AppID)
    case restorePiP(AppID)
    case completePiPRestore(AppID)
    /// Issued by the coordinator when a restore's deadline passes (P6).
    case pipRestoreDeadlinePassed(AppID)

    // System pressure (S1–S3)
    case setPressure(CameraSystemID, SystemPressureLevel)

    // Audio sessions (A1–A8): the app's own AVAudioSession calls
    /// `setCategory(_:options:)` (A1); on an active session, as a new activation (A2, A3).
    case setAudioCategory(AppID, AudioSessionConfiguration)
    /// `setActive(true)` when the user first uses the app's audio (A2, A3).
    case activateAudioSession(AppID)
    /// `setActive(false, options: .notifyOthersOnDeactivation)` (A6).
    case deactivateAudioSession(AppID)
}
