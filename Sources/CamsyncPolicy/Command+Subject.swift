extension Command {
    /// The node on whose behalf the command acts: the device of an app, the host of a camera
    /// system, the display for attach / detach, the node itself for registration and leaving.
    /// The coordinator refuses a node acting for another node's apps or cameras.
    public var subjectNode: NodeID? {
        switch self {
        case .registerNode(let registration): registration.node
        case .unregisterNode(let node), .declareNodeDead(let node): node
        case .attachDisplay(let display, _), .detachDisplay(let display): display
        case .setStageManager(let device, _), .setAutoPiP(let device, _), .setLayoutDirection(let device, _),
             .installApp(let device, _), .goHome(let device):
            device
        case .openFullScreen(let app, _), .split(let app, _), .slideOver(let app), .stageOpen(let app, _),
             .stageMove(let app, _), .stageClose(let app), .sendToBackground(let app, _), .terminate(let app),
             .reportMemory(let app, _), .configureSession(let app, _), .startSession(let app), .stopSession(let app),
             .startRecording(let app, _), .stopRecording(let app), .setupPiP(let app, _),
             .setPiPContentSource(let app, _), .releasePiP(let app), .startPiP(let app, _), .stashPiP(let app),
             .unstashPiP(let app), .movePiP(let app, _, _), .closePiP(let app), .restorePiP(let app),
             .completePiPRestore(let app), .pipRestoreDeadlinePassed(let app),
             .setAudioCategory(let app, _), .activateAudioSession(let app), .deactivateAudioSession(let app):
            app.device
        case .setPressure(let system, _): system.host
        }
    }
}
