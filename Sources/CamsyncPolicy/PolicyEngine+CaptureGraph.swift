/// Capture graphs (C11–C14) after the fact: the rules themselves are `ClusterState+CaptureGraph.swift`,
/// applied when a session is configured (`validateConfiguration`).
extension PolicyEngine {
    /// K2 with C11–C14 [policy]: an alive device that re-registers with other attributes (an older OS,
    /// no MultiCam) keeps no session it could no longer run. Such a session stops (`sessionStopped`
    /// when it wanted to run) and its configuration is removed; the app configures again.
    mutating func removeImpossibleCaptureGraphs(device: NodeID, _ tx: inout Transaction) {
        for id in index.runningApps(of: device) {
            guard let session = state.apps[id]?.session,
                  state.captureGraphRejection(of: session.configuration, device: device) != nil else { continue }
            if session.wantsToRun {
                stopSessionUnchecked(id, &tx)
                tx.emit(.sessionStopped(id))
            }
            state.updateApp(id) { $0.session = nil }
            index.moveSession(id, from: session.configuration.camera.host, to: nil)
            tx.affect(device)
            tx.affect(session.configuration.camera.host)
        }
    }
}
