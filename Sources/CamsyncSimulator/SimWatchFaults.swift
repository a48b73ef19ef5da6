import CamsyncCoordinator
import CamsyncRuntime
import CamsyncWire
import CamsyncCoordinatorCore

/// Faults of etcd's log watch (HA only), on a schedule and a random stream of their own, so that
/// adding them left the choices of every seed's other faults as they were:
///
/// - **a lagging watch**: for a while the standbys hear the log's turns 0.2–3 s late, in order, as
///   a slow watcher of a busy etcd does;
/// - **the leader dies right after a commit the standbys have not seen**: its turn is committed,
///   acknowledged and published, the leader crashes at once, and the standbys' watch delivers that
///   turn only 1–4 s later. The standby that wins then holds less than the log: K6 wants it to read
///   the log after its own sequence before it leads (`PlantedBug.leadWithoutCatchingUp` skips that).
struct WatchFaults {
    var rng: SplitMix64
    /// Extra delay of the watch's deliveries to each coordinator while a lag lasts (µs).
    var lag: [Int: Int64] = [:]
    /// When the last watch delivery to each coordinator was scheduled: a watch delivers in order.
    var lastDelivery: [Int: Int64] = [:]
    /// Armed: the leader's next committed turn reaches the other coordinators' watches this much
    /// later (µs), and the leader dies once it has answered that turn.
    var crashAfterCommit: Int64?
    /// The turn whose answer its leader dies right after.
    var crashing: (coordinator: Int, commit: UInt64)?

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed ^ 0x3A7C_0000_5EED_0001)
    }

    mutating func delay(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &rng) }
}

extension Simulation {

    /// The next fault of the watch, while the fault phase lasts.
    func injectWatchFault() {
        guard let leader = leaderIndex else { return }
        let kind = watchFaults.rng.next() % 2 == 0 ? "lagging-watch" : "kill-leader-after-commit"
        switch kind {
        case "lagging-watch":
            let by = watchFaults.delay(200_000...3_000_000), lasting = watchFaults.delay(300_000...4_000_000)
            for c in coordinators.indices where c != leader { watchFaults.lag[c] = by }
            scheduler.schedule(.heal(.watchCaughtUp), at: now + lasting)
            trace.note(now, "fault lagging-watch (standbys of c\(leader + 1) hear the log \(SimTrace.clock(by)) s late for \(SimTrace.clock(lasting)) s)")
        default:
            watchFaults.crashAfterCommit = watchFaults.delay(1_000_000...4_000_000)
            trace.note(now, "fault kill-leader-after-commit armed (c\(leader + 1))")
        }
        faultCounts[kind, default: 0] += 1
    }

    /// The store committed `turn` for coordinator `committer`: every coordinator's watch that
    /// reaches the store hears it, in order, late while a lag lasts. When a crash after commit is
    /// armed and `committer` leads, this is that turn: the others hear it late, and the leader dies
    /// once it has answered it.
    func watchersSee(_ turn: [LoggedBatch], committedBy committer: Int, commit: UInt64) {
        var late: Int64 = 0
        if let lag = watchFaults.crashAfterCommit, coordinators[committer].core?.role.isLeading == true {
            watchFaults.crashAfterCommit = nil
            watchFaults.crashing = (committer, commit)
            late = lag
        }
        for c in coordinators.indices where coordinators[c].running {
            for at in network.deliveries(from: .store, to: .coordinator(c), at: now, rng: &rng) {
                var when = at + (watchFaults.lag[c] ?? 0) + (c == committer ? 0 : late)
                when = max(when, (watchFaults.lastDelivery[c] ?? 0) + 1)
                watchFaults.lastDelivery[c] = when
                post(c, .logTurn(turn), at: when)
            }
        }
    }

    /// Whether coordinator `c` dies right after answering commit `id` (see `WatchFaults`).
    func diesAfterAnswering(_ c: Int, commit id: UInt64) -> Bool {
        guard let crashing = watchFaults.crashing, crashing.coordinator == c, crashing.commit == id else { return false }
        watchFaults.crashing = nil
        return true
    }

    /// The leader dies right after its answered commit; it restarts 0.3–4 s later.
    func crashAfterCommit(_ c: Int) {
        trace.note(now, "fault: \(coordinators[c].name) dies right after a commit the standbys have not seen")
        crashCoordinator(c)
        disturb(.coordinator(c))
        scheduler.schedule(.heal(.restartCoordinator(c)), at: now + watchFaults.delay(300_000...4_000_000))
    }
}
