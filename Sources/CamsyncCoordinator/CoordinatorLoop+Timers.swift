import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ZeroMQ

/// Deadlines of the loop: liveness (K1), PiP restore deadlines (P6), heartbeats on PUB, stats lines.
extension CoordinatorLoop {

    func nextDeadline(now: Int64) -> Int64 {
        var deadline = nextHeartbeat
        if let drop = routesToDrop.map(\.due).min() { deadline = min(deadline, drop) }
        if let liveness = core.nextLivenessDeadline(graceStart: graceStart) { deadline = min(deadline, liveness) }
        if let (due, _) = core.engine.nextDeadline() {
            let inMs = due.milliseconds - Clock.wallMilliseconds()
            deadline = min(deadline, now + max(0, inMs))
        }
        return deadline
    }

    /// The counters (also exported through swift-metrics), for log lines.
    func statsMetadata() -> Logger.Metadata {
        ["sequence": "\(core.sequence)", "term": "\(core.term)", "accepted": "\(metrics.commandsAccepted)",
         "refused": "\(metrics.commandsRefused)", "retries": "\(metrics.retriesAnswered)",
         "badFrames": "\(metrics.badFrames)", "declaredDead": "\(metrics.nodesDeclaredDead)"]
    }

    func runTimers() throws {
        let now = Clock.monotonicMilliseconds()
        if now >= nextStatsLog {
            if nextStatsLog > 0 { logger.info("coordinator stats", metadata: statsMetadata()) }
            nextStatsLog = now + 60_000
        }
        for node in core.silentNodes(at: now, graceStart: graceStart) {
            apply(.declareNodeDead(node), from: CoordinatorCore.selfSender, requestID: core.sequence + 1,
                  isAdmin: true, replyTo: nil)
        }
        while let (due, command) = core.engine.nextDeadline(), due.milliseconds <= Clock.wallMilliseconds() {
            let before = core.sequence
            apply(command, from: CoordinatorCore.selfSender, requestID: core.sequence + 1, isAdmin: true, replyTo: nil)
            if core.sequence == before { break }
        }
        if now >= nextHeartbeat {
            nextHeartbeat = now + settings.heartbeatIntervalMilliseconds
            var heartbeat = Envelope.coordinatorHeartbeat(
                term: core.term, lastSequence: core.sequence, time: Instant(milliseconds: Clock.wallMilliseconds()))
            if case .coordinatorHeartbeat(var body)? = heartbeat.body {
                body.heartbeatIntervalMs = livenessSettings.heartbeatIntervalMs
                body.liveness = livenessSettings.liveness
                heartbeat.body = .coordinatorHeartbeat(body)
            }
            pendingPublications.append((EventTopic.heartbeat, heartbeat))
        }
    }
}
