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
    /// The part of `state` the command could change, which the per-step invariants look at: the
    /// device groups it touched (every rule acts inside one group, docs/POLICY.md "Device groups"),
    /// so that a step costs what the command touches, not the cluster's size; the whole state for a
    /// refused command and every `HistoryChecker.wholeStateEvery` steps.
    let changed: ClusterState
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
    /// Every this many steps the invariants look at the whole state, not only the groups a step touched.
    public static let wholeStateEvery = 256

    /// Replays the journal through the engine once, from its base, showing every step to each of
    /// `checks` in turn; returns their results in the same order.
    static func replay(_ input: ReplayInput, settings: PolicySettings, _ checks: [any ReplayCheck]) -> [CheckResult] {
        var checks = checks
        var engine = PolicyEngine(settings: settings, state: input.baseState ?? ClusterState())
        for i in checks.indices { checks[i].start(engine.state) }
        for (index, entry) in input.commands.enumerated() {
            var rejection: Rejection?
            let groupBefore = entry.command.subjectNode.map(engine.state.group(of:))
            var changed: ClusterState?
            switch engine.apply(entry.command, at: entry.at) {
            case .failure(let refused):
                rejection = refused
            case .success(let events) where (index + 1) % wholeStateEvery != 0:
                changed = engine.state(ofGroups: entry.command.groups(before: groupBefore, events: events, after: engine))
            case .success:
                break
            }
            let step = ReplayStep(index: index, entry: entry, rejection: rejection, state: engine.state,
                                  changed: changed ?? engine.state)
            for i in checks.indices { checks[i].step(step) }
        }
        let state = engine.state
        return checks.indices.map { checks[$0].finish(state) }
    }
}
