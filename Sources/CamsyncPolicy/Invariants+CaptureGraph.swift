/// Capture-graph invariants (C11–C14), checked with the others by `invariantViolations(settings:)`.
extension ClusterState {
    /// Every session whose configuration its device could not run now, and every ARKit session
    /// that reports multitasking camera access as supported. `appIDs`: every app, in id order.
    func captureGraphInvariantViolations(appIDs: [AppID]) -> [String] {
        var violations: [String] = []
        for id in appIDs {
            guard let session = apps[id]?.session else { continue }
            if let rejection = captureGraphRejection(of: session.configuration, device: id.device) {
                violations.append("C11–C14: \(id) has a session its device cannot run: \(rejection.message)")
            }
            if session.configuration.runByARKit && session.multitaskingCameraAccessSupported {
                violations.append("C13: ARKit session of \(id) reports multitasking camera access as supported")
            }
        }
        return violations
    }
}
