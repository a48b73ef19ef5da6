public import CamsyncPolicy

/// Decides whether a soak history is safe, Jepsen-style: eight independent checks over the
/// recorded values. Pure: no I/O, no clock.
public enum HistoryChecker {
    /// Violations kept per check (all are counted).
    public static let maxViolationsPerCheck = 50

    /// Runs every check. `clockToleranceMilliseconds`: how much two capture intervals of
    /// different apps may overlap before it counts (0: every node reads the one machine clock).
    public static func check(_ history: History, settings: PolicySettings,
                             clockToleranceMilliseconds: Int64 = 0) -> CheckReport {
        let intervals = history.captureIntervals
        let results = [
            noOverlappingCaptures(intervals, endedAt: history.endedAt ?? latestTime(history),
                                  toleranceMilliseconds: clockToleranceMilliseconds),
            tokensStrictlyIncrease(history.grants, final: history.final),
            acknowledgedCommandsSurvive(history.acks, final: history.final),
            alertAtMostOncePerDevice(history.alerts, final: history.final),
            replicasConverge(history.final),
        ] + replay(history.replay, settings: settings, [
            // One replay of the journal for both checks that follow the model.
            SessionReasonsCheck(history.replay, sessions: history.sessions, final: history.final, settings: settings),
            AudioCheck(history.replay, audio: history.audio, final: history.final),
        ]) + [leadershipUnderPartitions(history.partitions)]
        let counts = HistoryCounts(
            operations: history.operations, faults: history.faults.reduce(0) { $0 + $1.count },
            faultsByKind: history.faults, intervals: intervals.count, grants: history.grants.count,
            acks: history.acks.count, alerts: history.alerts.count, replayedCommands: history.replay.commands.count,
            replicas: history.final.replicas.count)
        return CheckReport(results: results, counts: counts)
    }

    /// The latest wall time the history mentions (where open intervals end when `endedAt` is nil).
    static func latestTime(_ history: History) -> Instant {
        var times = history.fence.map(\.at) + history.nodeStops.map(\.at) + history.acks.map(\.ackedAt)
        times += history.replay.commands.map(\.at)
        times += history.captures.flatMap { [$0.start] + ($0.end.map { [$0] } ?? []) }
        return times.max() ?? .zero
    }
}

/// Collects violations up to the cap.
struct Findings {
    let check: CheckName
    var kept: [Violation] = []
    var count = 0
    init(_ check: CheckName) { self.check = check }
    mutating func add(_ message: String, slice: @autoclosure () -> [String] = []) {
        count += 1
        if kept.count < HistoryChecker.maxViolationsPerCheck { kept.append(Violation(check: check, message: message, slice: slice())) }
    }
    func result(examined: Int) -> CheckResult {
        CheckResult(name: check, examined: examined, violations: kept, violationCount: count)
    }
}

/// The entries of `items` around `index` (radius 2), the one at `index` marked.
func slice<T>(_ items: [T], around index: Int, radius: Int = 2, marking marked: Set<Int> = [], markCenter: Bool = true,
              _ describe: (T) -> String = { "\($0)" }) -> [String] {
    guard !items.isEmpty else { return [] }
    let low = max(0, index - radius), high = min(items.count - 1, index + radius)
    guard low <= high else { return [] }
    return (low...high).map { i in
        ((i == index && markCenter) || marked.contains(i) ? "> " : "  ") + describe(items[i])
    }
}

// MARK: 1. No overlapping captures (C1)

extension HistoryChecker {
    public static func noOverlappingCaptures(_ intervals: [CaptureInterval], endedAt: Instant,
                                             toleranceMilliseconds: Int64 = 0) -> CheckResult {
        var findings = Findings(.noOverlappingCaptures)
        let bySystem = Dictionary(grouping: intervals, by: \.system)
        for system in bySystem.keys.sorted() {
            let list = bySystem[system]!.sorted {
                ($0.start.milliseconds, ($0.end ?? endedAt).milliseconds, $0.app) < ($1.start.milliseconds, ($1.end ?? endedAt).milliseconds, $1.app)
            }
            func end(_ i: CaptureInterval) -> Int64 { max((i.end ?? endedAt).milliseconds, i.start.milliseconds) }
            for i in list.indices {
                for j in (i + 1)..<list.count {
                    let a = list[i], b = list[j]
                    // Sorted by start: nothing later can overlap `a` by more than the tolerance.
                    if b.start.milliseconds >= end(a) - toleranceMilliseconds { break }
                    guard a.app != b.app else { continue }
                    let overlap = min(end(a), end(b)) - b.start.milliseconds
                    guard overlap > toleranceMilliseconds else { continue }
                    findings.add(
                        "\(system): \(a.app) (token \(a.token), on \(a.node)) and \(b.app) (token \(b.token), on \(b.node)) "
                            + "both capture during [\(b.start.milliseconds), \(min(end(a), end(b)))) ms — \(overlap) ms overlap",
                        slice: slice(list, around: j, radius: 3, marking: [i]))
                }
            }
        }
        return findings.result(examined: intervals.count)
    }
}

// MARK: 2. Tokens strictly increase (C8)

extension HistoryChecker {
    public static func tokensStrictlyIncrease(_ grants: [GrantObservation], final: FinalState) -> CheckResult {
        var findings = Findings(.tokensStrictlyIncrease)
        let bySystem = Dictionary(grouping: grants, by: \.system)
        for system in bySystem.keys.sorted() {
            let observed = bySystem[system]!
            let events = observed.filter { $0.source == .event }
            // Globally: one grant per sequence, and tokens rise with the sequence.
            let ordered = events.enumerated().sorted { ($0.element.sequence, $0.offset) < ($1.element.sequence, $1.offset) }.map(\.element)
            var previous: GrantObservation?
            for (index, grant) in ordered.enumerated() {
                defer { if previous == nil || grant.sequence > previous!.sequence { previous = grant } }
                guard let last = previous else { continue }
                if grant.sequence == last.sequence {
                    if grant.token != last.token || grant.app != last.app {
                        findings.add("\(system): sequence \(grant.sequence) carries two grants — \(last.app) \(last.token) "
                                     + "(seen by \(last.node)) and \(grant.app) \(grant.token) (seen by \(grant.node))",
                                     slice: slice(ordered, around: index))
                    }
                } else if grant.token <= last.token {
                    findings.add("\(system): token \(grant.token) for \(grant.app) at seq \(grant.sequence) is not above "
                                 + "\(last.token) for \(last.app) at seq \(last.sequence)",
                                 slice: slice(ordered, around: index))
                }
            }
            // Per node, in the order the node saw them.
            let byNode = Dictionary(grouping: events, by: \.node)
            for node in byNode.keys.sorted() {
                let seen = byNode[node]!
                for index in seen.indices.dropFirst() {
                    let last = seen[index - 1], grant = seen[index]
                    if grant.sequence > last.sequence && grant.token <= last.token {
                        findings.add("\(system) on \(node): token \(grant.token) at seq \(grant.sequence) after \(last.token) "
                                     + "at seq \(last.sequence)", slice: slice(seen, around: index))
                    }
                }
            }
            // Snapshots: a snapshot at seq s names a token above every grant before s and below every grant after.
            for snapshot in observed where snapshot.source == .snapshot {
                if let later = ordered.first(where: { $0.sequence <= snapshot.sequence && $0.token > snapshot.token }) {
                    findings.add("\(system): snapshot at seq \(snapshot.sequence) seen by \(snapshot.node) has token \(snapshot.token), "
                                 + "below \(later.token) granted earlier at seq \(later.sequence)", slice: [snapshot.description, later.description])
                }
                if let earlier = ordered.first(where: { $0.sequence > snapshot.sequence && $0.token <= snapshot.token }) {
                    findings.add("\(system): grant \(earlier.token) at seq \(earlier.sequence) is not above token \(snapshot.token) "
                                 + "of the snapshot at seq \(snapshot.sequence)", slice: [snapshot.description, earlier.description])
                }
            }
            // K3: the coordinator's final last token is not below any token it handed out.
            if let highest = observed.max(by: { $0.token < $1.token }) {
                let last = final.coordinatorState.cameraSystems[system]?.lastToken ?? GrantToken(0)
                if last < highest.token {
                    findings.add("\(system): the coordinator ends with last token \(last), below \(highest.token) it granted",
                                 slice: [highest.description])
                }
            }
        }
        return findings.result(examined: grants.count)
    }
}

// MARK: 3. Acknowledged commands survive (K3, K5)

extension HistoryChecker {
    public static func acknowledgedCommandsSurvive(_ acks: [AcknowledgedCommand], final: FinalState) -> CheckResult {
        var findings = Findings(.acknowledgedCommandsSurvive)
        let journal = final.journal.sorted { $0.sequence < $1.sequence }
        var bySequence: [UInt64: Int] = [:]
        var byRequest: [String: [Int]] = [:]
        for (index, row) in journal.enumerated() {
            if bySequence[row.sequence] != nil {
                findings.add("journal holds sequence \(row.sequence) twice", slice: slice(journal, around: index))
            }
            bySequence[row.sequence] = index
            byRequest["\(row.node)#\(row.requestID)", default: []].append(index)
        }
        func around(_ sequence: UInt64) -> [String] {
            let index = journal.firstIndex { $0.sequence >= sequence } ?? journal.count - 1
            return slice(journal, around: max(index, 0), markCenter: false)
        }
        var ackedSequence: [String: AcknowledgedCommand] = [:]
        for ack in acks {
            let request = "\(ack.node)#\(ack.requestID)"
            if let other = ackedSequence[request], other.sequence != ack.sequence {
                findings.add("\(request) was acknowledged twice with different sequences \(other.sequence) and \(ack.sequence) (K5)",
                             slice: [other.description, ack.description])
            }
            ackedSequence[request] = ack
            if final.coordinatorSequence < ack.sequence {
                findings.add("final coordinator sequence \(final.coordinatorSequence) is below acknowledged seq \(ack.sequence) "
                             + "(\(request), \(ack.command))", slice: ["> \(ack)"] + around(ack.sequence))
                continue
            }
            if ack.sequence <= final.journalCompactedThrough { continue }
            guard let index = bySequence[ack.sequence] else {
                findings.add("acknowledged seq \(ack.sequence) (\(request), \(ack.command)) is missing from the final journal",
                             slice: ["> \(ack)"] + around(ack.sequence))
                continue
            }
            let row = journal[index]
            if row.node != ack.node || row.requestID != ack.requestID {
                findings.add("acknowledged seq \(ack.sequence) (\(request)) now holds \(row.node)#\(row.requestID)",
                             slice: ["> \(ack)"] + slice(journal, around: index))
            }
            if let rows = byRequest[request], rows.count > 1 {
                findings.add("\(request) was applied \(rows.count) times, at seqs \(rows.map { journal[$0].sequence }) (K5)",
                             slice: rows.map { "> \(journal[$0])" })
            }
        }
        return findings.result(examined: acks.count)
    }
}

// MARK: 4. R1 alert at most once per device

extension HistoryChecker {
    public static func alertAtMostOncePerDevice(_ alerts: [AlertObservation], final: FinalState) -> CheckResult {
        var findings = Findings(.alertAtMostOncePerDevice)
        let byDevice = Dictionary(grouping: alerts, by: \.device)
        for device in byDevice.keys.sorted() {
            let seen = byDevice[device]!.sorted { ($0.sequence, $0.node) < ($1.sequence, $1.node) }
            let sequences = Set(seen.map(\.sequence)).sorted()
            if sequences.count > 1 {
                let second = seen.firstIndex { $0.sequence == sequences[1] }!
                findings.add("\(device) showed the lower-quality alert \(sequences.count) times, at seqs \(sequences)",
                             slice: slice(seen, around: second))
            }
            // The "already shown" fact survives restarts (K3).
            if !final.coordinatorState.recordingAlertShown.contains(device) {
                findings.add("\(device) showed the alert at seq \(sequences[0]) but the final state forgot it",
                             slice: slice(seen, around: 0))
            }
        }
        return findings.result(examined: byDevice.count)
    }
}

// MARK: 5. Replicas converge

extension HistoryChecker {
    public static func replicasConverge(_ final: FinalState) -> CheckResult {
        var findings = Findings(.replicasConverge)
        let whole = PolicyEngine(state: final.coordinatorState)
        for replica in final.replicas.sorted(by: { $0.node < $1.node }) {
            if let group = replica.group {
                // A replica of one device group: at the group's last batch, holding the group's part.
                let last = final.coordinatorGroupSequences[group] ?? 0
                if replica.groupSequence != last {
                    findings.add("replica on \(replica.node) ends at group \(group)'s batch \(replica.groupSequence), the coordinator's at \(last)",
                                 slice: ["node \(replica.node): group \(group) at \(replica.groupSequence)", "coordinator: \(last)"])
                } else if !replica.state.equalsGroupPart(whole.state(ofGroup: group)),
                          let difference = firstDifference(replica.state, whole.state(ofGroup: group),
                                                           left: "replica on \(replica.node)", right: "coordinator's group \(group)") {
                    findings.add("replica on \(replica.node) differs from the coordinator's group \(group): \(difference.field)", slice: difference.detail)
                }
                continue
            }
            if replica.sequence != final.coordinatorSequence {
                findings.add("replica on \(replica.node) ends at seq \(replica.sequence), the coordinator at \(final.coordinatorSequence)",
                             slice: ["node \(replica.node): seq \(replica.sequence)", "coordinator: seq \(final.coordinatorSequence)"])
            } else if let difference = firstDifference(replica.state, final.coordinatorState, left: "replica on \(replica.node)", right: "coordinator") {
                findings.add("replica on \(replica.node) differs from the coordinator: \(difference.field)", slice: difference.detail)
            }
        }
        return findings.result(examined: final.replicas.count)
    }

    /// The first top-level field where two states differ, naming the node, app or camera system.
    public static func firstDifference(_ a: ClusterState, _ b: ClusterState, left: String = "left",
                                       right: String = "right") -> (field: String, detail: [String])? {
        func keyed<K: Comparable, V: Equatable>(_ name: String, _ x: [K: V], _ y: [K: V]) -> (String, [String])? {
            for key in Set(x.keys).union(y.keys).sorted() where x[key] != y[key] {
                let l = x[key].map { "\($0)" } ?? "absent", r = y[key].map { "\($0)" } ?? "absent"
                return ("\(name)[\(key)]", ["\(left): \(name)[\(key)] = \(l)", "\(right): \(name)[\(key)] = \(r)"])
            }
            return nil
        }
        if let d = keyed("nodes", a.nodes, b.nodes) { return d }
        for key in Set(a.apps.keys).union(b.apps.keys).sorted() where a.apps[key] != b.apps[key] {
            guard let x = a.apps[key], let y = b.apps[key] else { return keyed("apps", a.apps, b.apps) }
            let parts: [(String, String, String)] = [
                ("scene", "\(x.scene)", "\(y.scene)"), ("role", "\(String(describing: x.role))", "\(String(describing: y.role))"),
                ("session", "\(String(describing: x.session))", "\(String(describing: y.session))"),
                ("pip", "\(String(describing: x.pip))", "\(String(describing: y.pip))"),
                ("memoryFootprintMB", "\(x.memoryFootprintMB)", "\(y.memoryFootprintMB)"), ("spec", "\(x.spec)", "\(y.spec)"),
            ]
            let part = parts.first { $0.1 != $0.2 } ?? ("", "\(x)", "\(y)")
            let field = part.0.isEmpty ? "apps[\(key)]" : "apps[\(key)].\(part.0)"
            return (field, ["\(left): \(field) = \(part.1)", "\(right): \(field) = \(part.2)"])
        }
        if let d = keyed("cameraSystems", a.cameraSystems, b.cameraSystems) { return d }
        if a.recordingAlertShown != b.recordingAlertShown {
            return ("recordingAlertShown", ["\(left): recordingAlertShown = \(a.recordingAlertShown.sorted())",
                                            "\(right): recordingAlertShown = \(b.recordingAlertShown.sorted())"])
        }
        if a.ordinal != b.ordinal { return ("ordinal", ["\(left): ordinal = \(a.ordinal)", "\(right): ordinal = \(b.ordinal)"]) }
        return nil
    }
}

// MARK: 6. C2 reasons match the model (and replay determinism, K3)

extension HistoryChecker {
    public static func sessionReasonsMatchModel(_ replay: ReplayInput, sessions: [SessionObservation], final: FinalState,
                                                settings: PolicySettings) -> CheckResult {
        Self.replay(replay, settings: settings, [SessionReasonsCheck(replay, sessions: sessions, final: final, settings: settings)])[0]
    }
}

/// C2 at every step of the replay: every interrupted session has the reason the model expects, the
/// invariants hold, and what each node saw of a session matches the model at that sequence; at the
/// end (K3) the replay reproduces the coordinator's final sequence and state.
struct SessionReasonsCheck: ReplayCheck {
    let replay: ReplayInput
    let observations: [SessionObservation]
    let final: FinalState
    let settings: PolicySettings
    var findings = Findings(.sessionReasonsMatchModel)
    /// The next observation to compare with the model.
    var nextObservation: Int
    /// The last sequence replayed.
    var last: UInt64

    init(_ replay: ReplayInput, sessions: [SessionObservation], final: FinalState, settings: PolicySettings) {
        self.replay = replay
        self.final = final
        self.settings = settings
        observations = sessions.sorted { ($0.sequence, $0.node, $0.app) < ($1.sequence, $1.node, $1.app) }
        // Observations older than the base snapshot cannot be checked against the model.
        nextObservation = observations.firstIndex { $0.sequence >= replay.baseSequence } ?? observations.count
        last = replay.baseSequence
    }

    /// The model at `sequence` (after command `index`, or the base when nil) against C2 and the observations
    /// made up to (not including) `until`.
    /// `changed`: the part of `state` to check the invariants on (`ReplayStep.changed`).
    mutating func verify(_ state: ClusterState, changed: ClusterState, at sequence: UInt64, index: Int?, until: UInt64?) {
        // The commands around this one, put into words only for a finding (most steps have none).
        let commands = replay.commands
        func where_() -> [String] { index.map { slice(commands, around: $0) } ?? ["base snapshot at seq \(sequence)"] }
        for id in changed.apps.keys.sorted() {
            guard let session = changed.apps[id]?.session, case .interrupted(let reason) = session.state else { continue }
            let expected = changed.expectedSessionState(app: id)
            if expected != session.state {
                findings.add("at seq \(sequence): \(id) is interrupted with \(reason), the model expects \(expected)", slice: where_())
            }
        }
        let broken = changed.invariantViolations(settings: settings)
        if !broken.isEmpty {
            findings.add("at seq \(sequence): invariants broken: \(broken.prefix(3).joined(separator: "; "))"
                         + (broken.count > 3 ? " (+\(broken.count - 3))" : ""), slice: where_())
        }
        while nextObservation < observations.count, until.map({ observations[nextObservation].sequence < $0 }) ?? true {
            let seen = observations[nextObservation]
            nextObservation += 1
            let model = state.apps[seen.app]?.session?.state ?? .stopped
            if model != seen.state {
                findings.add("\(seen.node) saw \(seen.app) \(seen.state) at seq \(seen.sequence), the model has \(model)",
                             slice: ["> \(seen)"] + where_())
            }
        }
    }

    /// The base snapshot (or the empty state) is a moment too: observations before the first command see it.
    mutating func start(_ state: ClusterState) {
        verify(state, changed: state, at: replay.baseSequence, index: nil, until: replay.commands.first?.sequence)
    }

    mutating func step(_ step: ReplayStep) {
        let commands = replay.commands, entry = step.entry, index = step.index
        if entry.sequence <= last {
            findings.add("journal sequence \(entry.sequence) does not follow \(last)", slice: slice(commands, around: index))
        }
        last = max(last, entry.sequence)
        if let rejection = step.rejection {
            findings.add("journaled command at seq \(entry.sequence) is rejected on replay: \(rejection)",
                         slice: slice(commands, around: index))
        }
        verify(step.state, changed: step.changed, at: entry.sequence, index: index,
               until: index + 1 < commands.count ? commands[index + 1].sequence : nil)
    }

    mutating func finish(_ state: ClusterState) -> CheckResult {
        let commands = replay.commands
        // K3: replay reproduces the coordinator's final state exactly.
        if !commands.isEmpty || replay.baseState != nil {
            if last != final.coordinatorSequence {
                findings.add("replay ends at seq \(last), the coordinator at \(final.coordinatorSequence)",
                             slice: slice(commands, around: commands.count - 1))
            }
            if let difference = HistoryChecker.firstDifference(state, final.coordinatorState, left: "replay", right: "coordinator") {
                findings.add("the replayed state differs from the coordinator's final state: \(difference.field)",
                             slice: difference.detail)
            }
        }
        return findings.result(examined: commands.count + observations.count)
    }
}
