import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` every 50 ms until it holds or `timeout` (seconds) passes; then throws a
/// `ClusterWaitError` naming `what` and the condition's last error. The condition runs at least once.
public func waitUntil(timeout: Double, what: String, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    var lastError: (any Error)?
    while true {
        do {
            if try condition() { return }
        } catch {
            lastError = error
        }
        if Date() >= deadline { break }
        usleep(50_000)
    }
    throw ClusterWaitError(message: "timed out after \(timeout) s waiting for \(what)"
        + (lastError.map { " (last error: \($0))" } ?? ""))
}
