import CamsyncCoordinatorCore
import CamsyncRuntime
import Logging
import Metrics

/// How long one iteration of the loop took, phase by phase: every iteration goes to the
/// `camsync_turn_seconds` timer, and one longer than `slowMilliseconds` is logged with each phase's
/// share, so that a leader whose pulse came late (a standby's suspicion, its own step-down) shows
/// which part of its turn held it.
struct TurnTiming {
    /// A quarter of the default suspicion window: a turn this long leaves the pulse little room.
    static let slowMilliseconds: Int64 = 100
    static let timer = Metrics.Timer(label: "camsync_turn_seconds")

    private let start = Clock.monotonicNanoseconds()
    private var last = Clock.monotonicNanoseconds()
    private var phases: [(CoordinatorPhase, UInt64)] = []

    mutating func ended(_ phase: CoordinatorPhase) {
        let now = Clock.monotonicNanoseconds()
        phases.append((phase, now - last))
        last = now
    }

    func report(to logger: Logger) {
        let total = last - start
        Self.timer.recordNanoseconds(Int64(total))
        guard total > UInt64(Self.slowMilliseconds) * 1_000_000 else { return }
        var metadata: Logger.Metadata = ["ms": "\(total / 1_000_000)"]
        for (phase, nanoseconds) in phases where nanoseconds >= 1_000_000 {
            metadata["\(phase)"] = "\(nanoseconds / 1_000_000)"
        }
        logger.warning("a slow turn: its phases' milliseconds", metadata: metadata)
    }
}
