import Foundation
import Testing
import CamsyncPolicy
@testable import CamsyncHistory

let sys: CameraSystemID = .builtIn(device: "ipad")
let appA = AppID(device: "ipad", bundleID: "com.example.a")
let appB = AppID(device: "ipad", bundleID: "com.example.b")

func emptyFinal(sequence: UInt64 = 0, journal: [JournalRow] = []) -> FinalState {
    FinalState(coordinatorState: ClusterState(), coordinatorSequence: sequence, journal: journal, replicas: [])
}

func interval(_ app: AppID, _ token: UInt64, _ start: Int64, _ end: Int64?, system: CameraSystemID = sys) -> CaptureInterval {
    CaptureInterval(node: system.host, system: system, app: app, token: GrantToken(token), start: Instant(milliseconds: start),
                    end: end.map { Instant(milliseconds: $0) })
}

@Suite struct RealisticHistoryTests {
    @Test func realisticHistoryPassesEveryCheck() {
        let history = realisticRun().history
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.passed, "\(report.summary)")
        #expect(report.results.map(\.name) == CheckName.allCases)
        #expect(report.summary.hasSuffix("violations: 0"))
        #expect(report.counts.intervals >= 5)
        #expect(report.counts.grants > 0 && report.counts.acks == history.acks.count)
        #expect(history.alerts.count >= 1 && history.nodeStops.count == 1)
        // The run exercised preemption, a kill and the R1 alert.
        #expect(history.final.coordinatorState.recordingAlertShown == ["ipad-a"])
        #expect(history.final.coordinatorState.nodes["ipad-b"]?.alive == false)
    }

    @Test func historyRoundTripsThroughJSON() throws {
        let history = realisticRun().history
        let data = try JSONEncoder().encode(history)
        let decoded = try JSONDecoder().decode(History.self, from: data)
        #expect(decoded == history)
        // JSON lines: one entry a line.
        let lines = try history.replay.commands.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        #expect(!lines.contains { $0.contains("\n") })
        let back = try lines.map { try JSONDecoder().decode(ReplayCommand.self, from: Data($0.utf8)) }
        #expect(back == history.replay.commands)
    }

    @Test func killedNodeIntervalsEndAtTheKill() {
        let history = realisticRun().history
        let onB = history.captureIntervals.filter { $0.node == "ipad-b" }
        #expect(!onB.isEmpty)
        #expect(onB.allSatisfy { $0.end != nil && $0.end! <= history.nodeStops[0].at })
    }
}

// MARK: 1. No overlapping captures

@Suite struct OverlapTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var intervals: [CaptureInterval]
        var tolerance: Int64 = 0
        var passes: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "overlapping grant fails", intervals: [interval(appA, 1, 0, 100), interval(appB, 2, 50, 150)], passes: false),
        Case(name: "adjacent intervals pass", intervals: [interval(appA, 1, 0, 100), interval(appB, 2, 100, 200)], passes: true),
        Case(name: "open interval then another app fails", intervals: [interval(appA, 1, 0, nil), interval(appB, 2, 500, 600)], passes: false),
        Case(name: "contained interval fails", intervals: [interval(appA, 1, 0, 1000), interval(appB, 2, 10, 20)], passes: false),
        Case(name: "same app twice passes", intervals: [interval(appA, 1, 0, 100), interval(appA, 2, 50, 150)], passes: true),
        Case(name: "other systems pass",
             intervals: [interval(appA, 1, 0, 100), interval(appB, 1, 50, 150, system: .builtIn(device: "other"))], passes: true),
        Case(name: "overlap within tolerance passes",
             intervals: [interval(appA, 1, 0, 100), interval(appB, 2, 95, 200)], tolerance: 5, passes: true),
        Case(name: "overlap beyond tolerance fails",
             intervals: [interval(appA, 1, 0, 100), interval(appB, 2, 94, 200)], tolerance: 5, passes: false),
    ])
    func overlap(_ c: Case) {
        let history = History(captures: c.intervals, final: emptyFinal(), endedAt: Instant(milliseconds: 10_000))
        let report = HistoryChecker.check(history, settings: PolicySettings(), clockToleranceMilliseconds: c.tolerance)
        #expect(report.passed(.noOverlappingCaptures) == c.passes, "\(report.summary)")
        if !c.passes {
            #expect(report.failed == [.noOverlappingCaptures])
            #expect(report.counterexample?.message.contains(appB.description) == true)
            #expect(report.counterexample?.slice.isEmpty == false)
            #expect(report.summary.hasSuffix("violations: \(report.violationCount)") && report.violationCount > 0)
        }
    }

    @Test func intervalsFromFenceRecords() {
        func f(_ node: NodeID, _ kind: FenceDecision.Kind, _ app: AppID, _ token: UInt64, _ t: Int64) -> FenceRecord {
            FenceRecord(node: node, decision: FenceDecision(kind, system: sys, app: app, token: GrantToken(token)),
                        sequence: UInt64(t), at: Instant(milliseconds: t))
        }
        // Released, then granted to B at the same ms: adjacent. A kill ends B's; after restart A again.
        let fence = [
            f("ipad", .allowed, appA, 1, 10),
            f("ipad", .released, appA, 1, 40),
            f("ipad", .allowed, appB, 2, 40),
            f("ipad", .allowed, appA, 3, 90),
            f("ipad", .refusedStale(highest: GrantToken(3)), appB, 2, 95),
            f("ipad", .allowed, appB, 4, 130),
        ]
        let built = CaptureInterval.build(fence: fence, stops: [NodeStopped(node: "ipad", at: Instant(milliseconds: 100))])
        #expect(built == [
            interval(appA, 1, 10, 40), interval(appB, 2, 40, 90), interval(appA, 3, 90, 100), interval(appB, 4, 130, nil),
        ])
        let good = History(fence: fence, final: emptyFinal())
        #expect(HistoryChecker.check(good, settings: PolicySettings()).passed(.noOverlappingCaptures))
        // A second process still serving ipad's camera after the kill (it never stopped): overlap.
        let zombie = History(fence: fence + [f("ipad-old", .allowed, appA, 3, 90)], final: emptyFinal(),
                             endedAt: Instant(milliseconds: 1_000))
        let report = HistoryChecker.check(zombie, settings: PolicySettings())
        #expect(!report.passed(.noOverlappingCaptures))
        #expect(report.counterexample?.message.contains("ipad-old") == true, "\(report.summary)")
    }
}

// MARK: 2. Tokens strictly increase

@Suite struct TokenTests {
    static func g(_ node: NodeID, _ app: AppID, _ token: UInt64, _ seq: UInt64, _ source: GrantSource = .event) -> GrantObservation {
        GrantObservation(node: node, system: sys, app: app, token: GrantToken(token), sequence: seq, source: source)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var grants: [GrantObservation]
        var passes: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "increasing on two nodes passes",
             grants: [g("n1", appA, 1, 3), g("n2", appA, 1, 3), g("n1", appB, 2, 5), g("n2", appB, 2, 5), g("n1", appA, 4, 9)],
             passes: true),
        Case(name: "decreasing token fails", grants: [g("n1", appA, 3, 3), g("n1", appB, 2, 5)], passes: false),
        Case(name: "repeated token fails", grants: [g("n1", appA, 2, 3), g("n2", appB, 2, 5)], passes: false),
        Case(name: "two grants at one sequence fail", grants: [g("n1", appA, 2, 3), g("n2", appB, 3, 3)], passes: false),
        Case(name: "a node seeing an old grant late passes (fenced)",
             grants: [g("n1", appB, 2, 5), g("n1", appA, 1, 3)], passes: true),
        Case(name: "snapshot consistent passes",
             grants: [g("n1", appA, 1, 3), g("n2", appA, 1, 4, .snapshot), g("n1", appB, 2, 5)], passes: true),
        Case(name: "snapshot behind a later grant fails",
             grants: [g("n1", appA, 1, 3), g("n1", appB, 2, 5), g("n2", appB, 1, 6, .snapshot)], passes: false),
    ])
    func tokens(_ c: Case) {
        var state = ClusterState()
        state.cameraSystems[sys] = CameraSystemRecord(id: sys, cameras: [], lastToken: GrantToken(10))
        let final = FinalState(coordinatorState: state, coordinatorSequence: 0, journal: [], replicas: [])
        let report = HistoryChecker.check(History(grants: c.grants, final: final), settings: PolicySettings())
        #expect(report.passed(.tokensStrictlyIncrease) == c.passes, "\(report.summary)")
        if !c.passes { #expect(report.failed == [.tokensStrictlyIncrease]) }
    }

    @Test func coordinatorThatForgotATokenFails() {
        let report = HistoryChecker.check(History(grants: [Self.g("n1", appA, 5, 3)], final: emptyFinal()), settings: PolicySettings())
        #expect(!report.passed(.tokensStrictlyIncrease))
        #expect(report.counterexample?.message.contains("last token #0") == true)
    }
}

// MARK: 3. Acknowledged commands survive

@Suite struct AckTests {
    static let journal = (1...10).map { JournalRow(sequence: UInt64($0), node: $0 == 7 ? "ipad" : "other", requestID: UInt64($0)) }
    static let ack = AcknowledgedCommand(node: "ipad", requestID: 7, sequence: 7, command: .goHome(device: "ipad"),
                                         ackedAt: Instant(milliseconds: 70))

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var final: FinalState
        var passes: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "acked seq 7 in the journal passes", final: emptyFinal(sequence: 10, journal: journal), passes: true),
        Case(name: "acked seq 7 missing from the journal fails",
             final: emptyFinal(sequence: 10, journal: journal.filter { $0.sequence != 7 }), passes: false),
        Case(name: "final sequence below 7 fails", final: emptyFinal(sequence: 6, journal: Array(journal.prefix(6))), passes: false),
        Case(name: "seq 7 taken by another request fails",
             final: emptyFinal(sequence: 10, journal: journal.map { $0.sequence == 7 ? JournalRow(sequence: 7, node: "x", requestID: 1) : $0 }),
             passes: false),
        Case(name: "applied twice fails (K5)",
             final: emptyFinal(sequence: 11, journal: journal + [JournalRow(sequence: 11, node: "ipad", requestID: 7)]), passes: false),
        Case(name: "compacted into a snapshot passes",
             final: FinalState(coordinatorState: ClusterState(), coordinatorSequence: 10, journal: Array(journal.suffix(2)),
                               journalCompactedThrough: 8, replicas: []), passes: true),
    ])
    func acks(_ c: Case) {
        let report = HistoryChecker.check(History(acks: [Self.ack], final: c.final), settings: PolicySettings())
        #expect(report.passed(.acknowledgedCommandsSurvive) == c.passes, "\(report.summary)")
        if !c.passes {
            #expect(report.failed == [.acknowledgedCommandsSurvive])
            #expect(report.counterexample?.message.contains("7") == true)
        }
    }

    @Test func summaryShowsTheCounterexample() {
        var history = realisticRun().history
        history.final.journal.removeAll { $0.sequence == 7 }
        let summary = HistoryChecker.check(history, settings: PolicySettings()).summary
        print(summary)
        let lines = summary.split(separator: "\n").map(String.init)
        #expect(lines.contains("[FAIL] acknowledged commands survive (K3, K5) — 1 violation(s) in \(history.acks.count) checked"))
        #expect(lines.contains { $0.contains("history slice:") })
        #expect(lines.contains { $0.hasPrefix("    > ack ") && $0.contains("seq 7") })
        #expect(lines.last == "violations: 1")
    }

    @Test func lostAckFromARealRunFails() {
        var history = realisticRun().history
        let lost = history.acks[6]
        history.final.journal.removeAll { $0.sequence == lost.sequence }
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed == [.acknowledgedCommandsSurvive])
        #expect(report.counterexample?.message.contains("seq \(lost.sequence)") == true)
        #expect(report.summary.hasSuffix("violations: 1"))
    }
}

// MARK: 4. R1 alert at most once per device

@Suite struct AlertTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var alerts: [AlertObservation]
        var passes: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "two devices once each pass", alerts: [
            AlertObservation(node: "a", device: "a", sequence: 4), AlertObservation(node: "b", device: "a", sequence: 4),
            AlertObservation(node: "a", device: "b", sequence: 9),
        ], passes: true),
        Case(name: "repeated alert on one device fails", alerts: [
            AlertObservation(node: "a", device: "a", sequence: 4), AlertObservation(node: "a", device: "a", sequence: 12),
        ], passes: false),
    ])
    func alerts(_ c: Case) {
        var state = ClusterState()
        state.recordingAlertShown = ["a", "b"]
        let final = FinalState(coordinatorState: state, coordinatorSequence: 0, journal: [], replicas: [])
        let report = HistoryChecker.check(History(alerts: c.alerts, final: final), settings: PolicySettings())
        #expect(report.passed(.alertAtMostOncePerDevice) == c.passes, "\(report.summary)")
        if !c.passes {
            #expect(report.failed == [.alertAtMostOncePerDevice])
            #expect(report.counterexample?.message.contains("[4, 12]") == true)
        }
    }

    @Test func forgottenAlertFactFails() {
        let report = HistoryChecker.check(History(alerts: [AlertObservation(node: "a", device: "a", sequence: 4)], final: emptyFinal()),
                                          settings: PolicySettings())
        #expect(report.failed == [.alertAtMostOncePerDevice])
    }
}

// MARK: 5. Replicas converge

@Suite struct ReplicaTests {
    @Test func differingReplicaFailsNamingTheNode() {
        var history = realisticRun().history
        let index = history.final.replicas.firstIndex { $0.node == "display-1" }!
        let app = AppID.on("ipad-a", Apps.scanner)
        history.final.replicas[index].state.apps[app]?.scene = .fullScreen
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed == [.replicasConverge])
        let message = report.counterexample?.message ?? ""
        #expect(message.contains("display-1") && message.contains("apps[\(app)].scene"), "\(message)")
    }

    @Test func laggingReplicaFails() {
        var history = realisticRun().history
        history.final.replicas[0].sequence -= 1
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed == [.replicasConverge])
        #expect(report.counterexample?.message.contains(history.final.replicas[0].node.rawValue) == true)
    }

    @Test func differingCameraSystemIsNamed() {
        var history = realisticRun().history
        let system = CameraSystemID.builtIn(device: "ipad-a")
        history.final.replicas[0].state.cameraSystems[system]?.lastToken = GrantToken(99)
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.counterexample?.message.contains("cameraSystems[\(system)]") == true)
    }
}

// MARK: 6. C2 reasons match the model

@Suite struct ModelTests {
    /// Splits a real run at the first moment some session is interrupted: the base snapshot there
    /// and the commands after it.
    static func splitRun() throws -> (History, base: Int, app: AppID, reason: InterruptionReason) {
        let recorder = realisticRun()
        var engine = PolicyEngine()
        for (index, entry) in recorder.replay.enumerated() {
            _ = engine.apply(entry.command, at: entry.at)
            if let (id, reason) = engine.state.apps.keys.sorted().lazy.compactMap({ id -> (AppID, InterruptionReason)? in
                if case .interrupted(let reason) = engine.state.apps[id]?.session?.state { (id, reason) } else { nil }
            }).first {
                var history = recorder.history
                history.replay = ReplayInput(baseState: engine.state, baseSequence: entry.sequence,
                                             commands: Array(recorder.replay[(index + 1)...]))
                return (history, index, id, reason)
            }
        }
        throw SplitRunError()
    }

    @Test func replayFromASnapshotPasses() throws {
        let (history, _, _, _) = try Self.splitRun()
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.passed, "\(report.summary)")
    }

    @Test func tamperedReasonInTheSnapshotFails() throws {
        var (history, _, app, reason) = try Self.splitRun()
        let other: InterruptionReason = reason == .videoDeviceInUseByAnotherClient
            ? .videoDeviceNotAvailableDueToSystemPressure : .videoDeviceInUseByAnotherClient
        history.replay.baseState?.apps[app]?.session?.state = .interrupted(other)
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed.contains(.sessionReasonsMatchModel))
        let message = report.result(.sessionReasonsMatchModel)?.violations.first?.message ?? ""
        #expect(message.contains(app.description) && message.contains("\(other)"), "\(message)")
    }

    @Test func observedReasonDifferingFromTheModelFails() {
        var history = realisticRun().history
        let index = history.sessions.firstIndex { if case .interrupted = $0.state { true } else { false } }!
        history.sessions[index].state = .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps)
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed == [.sessionReasonsMatchModel])
        #expect(report.counterexample?.message.contains("the model has") == true)
        #expect(report.counterexample?.slice.contains { $0.hasPrefix("> seq") } == true)
    }

    @Test func finalStateThatReplayDoesNotReproduceFails() {
        var history = realisticRun().history
        history.final.coordinatorState.ordinal += 1
        for i in history.final.replicas.indices { history.final.replicas[i].state.ordinal += 1 }
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed == [.sessionReasonsMatchModel])
        #expect(report.counterexample?.message.contains("ordinal") == true)
    }

    @Test func journalCommandRejectedOnReplayFails() {
        var history = realisticRun().history
        history.replay.commands.insert(ReplayCommand(sequence: 1, command: .startSession(AppID.on("ghost", Apps.notes)),
                                                     at: Instant(milliseconds: 1)), at: 1)
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(!report.passed(.sessionReasonsMatchModel))
        #expect(report.result(.sessionReasonsMatchModel)?.violations.contains { $0.message.contains("rejected on replay") } == true)
    }
}

/// The realistic run had no interrupted session to tamper with (the test cannot do its job).
struct SplitRunError: Error {}
