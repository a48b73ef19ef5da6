/// C6: the order in which a free camera goes back to the sessions waiting for it.
extension ClusterState {
    /// `apps` in C6's order: first the sessions preempted by C4, the most recently preempted first
    /// (last in, first out); then the others, the longest waiting first [policy]; ties by app id.
    /// Arbitration hands a free camera to the first eligible one.
    public func returnOrder(_ apps: [AppID]) -> [AppID] {
        apps.sorted { a, b in
            let sa = self.apps[a]?.session, sb = self.apps[b]?.session
            switch (sa?.preemptedAt, sb?.preemptedAt) {
            case let (pa?, pb?): return pa != pb ? pa > pb : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil):
                let wa = sa?.waitingSince ?? UInt64.max, wb = sb?.waitingSince ?? UInt64.max
                return wa != wb ? wa < wb : a < b
            }
        }
    }

    /// C6's stack for a camera system: every running app's session that wants it but does not hold
    /// it, eligible or not, in the order the camera would go back to them.
    public func waiters(of system: CameraSystemID) -> [AppID] {
        let holder = cameraSystems[system]?.holder
        let wanting = apps.values.filter { app in
            guard app.id != holder, app.scene.isRunning, let session = app.session, session.wantsToRun else { return false }
            return cameraSystem(of: session.configuration.camera) == system
        }.map(\.id)
        return returnOrder(wanting)
    }
}
