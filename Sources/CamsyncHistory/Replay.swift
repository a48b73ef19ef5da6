import CamsyncPolicy

/// One command of the journal as the replay applied it.
struct ReplayStep {
    /// Its index in `ReplayInput.commands`.
    let index: Int
    let entry: ReplayCommand
    /// Why the engine refused the command on replay, if it did (the state is then unchanged).
    let rejection: Rejection?
    /// The engine's state after the command.
    let state: ClusterState
}

/// A check that follows the model: it watches the one replay of the journal through the engine.
protocol ReplayCheck {
    /// The state before the first command: the base snapshot's, or the empty state.
    mutating func start(_ state: ClusterState)
    /// Each command of the journal, in order, once the engine has applied (or refused) it.
    mutating func step(_ step: ReplayStep)
    /// The result, given the state the replay ended in.
    mutating func finish(_ state: ClusterState) -> CheckResult
}

extension HistoryChecker {
    /// Replays the journal through the engine once, from its base, showing every step to each of
    /// `checks` in turn; returns their results in the same order.
    static func replay(_ input: ReplayInput, settings: PolicySettings, _ checks: [any ReplayCheck]) -> [CheckResult] {
        var checks = checks
        var engine = PolicyEngine(settings: settings, state: input.baseState ?? ClusterState())
        for i in checks.indices { checks[i].start(engine.state) }
        for (index, entry) in input.commands.enumerated() {
            var rejection: Rejection?
            if case .failure(let refused) = engine.apply(entry.command, at: entry.at) { rejection = refused }
            let step = ReplayStep(index: index, entry: entry, rejection: rejection, state: engine.state)
            for i in checks.indices { checks[i].step(step) }
        }
        let state = engine.state
        return checks.indices.map { checks[$0].finish(state) }
    }
}
