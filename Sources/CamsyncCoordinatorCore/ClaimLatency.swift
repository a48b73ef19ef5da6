import CamsyncPolicy

/// Claim→grant latency in engine time: a claim is an accepted `startSession`; its grant is the first
/// `cameraGranted` for that app afterwards (in the same batch: 0 ms). A session that stops, or an app
/// that terminates, before its grant drops its claim. Kept by the core, exported by the shell as
/// `camsync_camera_wait_seconds`.
struct ClaimLatency: Sendable {
    private var claimedAt: [AppID: Int64] = [:]

    /// Feeds one accepted command and its events; returns the latencies of the grants it completed.
    mutating func observe(_ command: Command, events: [Event], at milliseconds: Int64) -> [Int64] {
        if case .startSession(let app) = command, claimedAt[app] == nil { claimedAt[app] = milliseconds }
        var latencies: [Int64] = []
        for event in events {
            switch event {
            case .cameraGranted(_, let app, _):
                if let start = claimedAt.removeValue(forKey: app) { latencies.append(milliseconds - start) }
            case .sessionStopped(let app), .appTerminated(let app, _):
                claimedAt[app] = nil
            case .nodeLeft(let node, _):
                claimedAt = claimedAt.filter { $0.key.device != node }
            default:
                break
            }
        }
        return latencies
    }
}
