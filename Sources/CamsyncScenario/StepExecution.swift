import CamsyncProcessLab
import CamsyncClient
import CamsyncPolicy
import CamsyncWire
import Foundation
import Synchronization
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// Runs one step and its checks; returns nil when it passed, else the readable failure.
struct StepExecution {
    let access: ClusterAccess
    let cluster: LocalCluster?
    let step: Scenario.Step
    /// The coordinator's sequence when the step began: "since the step began" means after it.
    let baseline: UInt64

    func run() -> String? {
        if let failure = perform() { return failure }
        return check()
    }

    // MARK: Actions

    private func perform() -> String? {
        switch step.action {
        case .check:
            return nil
        case .act(let acts, let refusal):
            for act in acts {
                do {
                    let sequence = try access.act(act.node.rawValue, act.command)
                    if let refusal {
                        return "  expected: the coordinator refuses `\(act.text)` (\(describe(refusal)))\n"
                            + "  actual:   it was accepted (sequence \(sequence))" + eventSlice([act.node])
                    }
                } catch let ClientError.refused(refused) {
                    let refusedText = "\(refused)"
                    guard let refusal else {
                        return "  expected: `\(act.text)` on \(act.node) is accepted\n  actual:   \(refusedText)"
                    }
                    let matches: Bool
                    switch refusal {
                    case .code(let name):
                        matches = refused.names.map { $0.lowercased() }.contains(name.lowercased())
                    case .message(let text):
                        matches = refused.message.lowercased().contains(text.lowercased())
                    case .any:
                        matches = true
                    }
                    if !matches {
                        return "  expected: refusal \(describe(refusal))\n  actual:   \(refusedText)"
                    }
                } catch {
                    return "  expected: `\(act.text)` on \(act.node) is answered\n  actual:   \(error)"
                }
            }
            return nil
        case .concurrent(let acts):
            let results = ErrorList()
            var threads: [JoinableThread] = []
            for act in acts {
                let context = access.context
                guard let endpoint = access.controls[act.node.rawValue] else { return "  no control endpoint for \(act.node)" }
                let (node, text, command) = (act.node, act.text, act.command)
                do {
                    threads.append(try JoinableThread {
                        do {
                            let client = try ControlClient(context: context, endpoint: endpoint, node: node.rawValue)
                            defer { client.close() }
                            _ = try client.act(command, timeoutMilliseconds: 10_000)
                        } catch {
                            results.append("  `\(text)` on \(node): \(error)")
                        }
                    })
                } catch {
                    return "  could not start a thread: \(error)"
                }
            }
            threads.forEach { $0.join() }
            let errors = results.all
            return errors.isEmpty ? nil : "  expected: every concurrent action is accepted\n  actual:\n" + errors.joined(separator: "\n")
        case .retrySameRequest(let act, let times):
            do {
                let before = try access.snapshot().sequence
                let client = try CoordinatorClient(context: access.context, endpoint: access.commands, sender: act.node.rawValue,
                                                   curve: access.curve)
                defer { client.close() }
                let requestID = UInt64.random(in: 1_000_000...(UInt64.max >> 8))
                var sequences: [UInt64] = []
                for _ in 0..<times { sequences.append(try client.send(act.command, requestID: requestID)) }
                let after = try access.snapshot().sequence
                if Set(sequences).count != 1 || after != before + 1 {
                    return "  expected: `\(act.text)` sent \(times)× with request id \(requestID) is applied once (K5): "
                        + "every reply names sequence \(before + 1), the coordinator ends at \(before + 1)\n"
                        + "  actual:   replies \(sequences), coordinator sequence \(before) → \(after)"
                }
                return nil
            } catch {
                return "  expected: `\(act.text)` is accepted on every retry\n  actual:   \(error)"
            }
        case .kill(let node):
            cluster?.signalNode(node.rawValue, SIGKILL)
            access.paused.remove(node.rawValue)
            return nil
        case .pause(let node):
            cluster?.signalNode(node.rawValue, SIGSTOP)
            access.paused.insert(node.rawValue)
            return nil
        case .resume(let node):
            cluster?.signalNode(node.rawValue, SIGCONT)
            access.paused.remove(node.rawValue)
            return nil
        case .restart(let node):
            guard let cluster else { return "  restart needs a cluster the runner started (--local)" }
            do {
                if cluster.nodes[node.rawValue]?.isRunning == true {
                    cluster.signalNode(node.rawValue, SIGKILL)
                }
                access.paused.remove(node.rawValue)
                try cluster.startNode(node.rawValue)
                try access.poll(timeout: 20, what: "\(node) to rejoin and sync") {
                    let status = try access.status(node.rawValue, timeoutMilliseconds: 1_000)
                    let snapshot = try access.snapshot(timeoutMilliseconds: 1_000)
                    return status.registered && status.synced && snapshot.state.nodes[node]?.alive == true
                }
                return nil
            } catch {
                return "  expected: \(node) restarts, rejoins and syncs (K2)\n  actual:   \(error)\n"
                    + (cluster.nodes[node.rawValue]?.logTail(10) ?? "")
            }
        case .killCoordinator:
            cluster?.signalCoordinator(SIGKILL)
            return nil
        case .restartCoordinator:
            guard let cluster else { return "  restart_coordinator needs a cluster the runner started (--local)" }
            do {
                let before = cluster.coordinator?.isRunning == true ? try? access.snapshot(timeoutMilliseconds: 1_000).term : nil
                if cluster.coordinator?.isRunning == true { cluster.signalCoordinator(SIGKILL) }
                try cluster.startCoordinator()
                try access.poll(timeout: 20, what: "the coordinator to come back and every node to continue with it") {
                    let snapshot = try access.snapshot(timeoutMilliseconds: 1_000)
                    guard before.map({ snapshot.term > $0 }) ?? true else { return false }
                    for id in access.reachableNodes {
                        let status = try access.status(id, timeoutMilliseconds: 1_000)
                        // K7: a restart from the journal is not a rejoin: each node keeps its registration and
                        // its replica, which continues at the restarted coordinator's sequence.
                        guard status.registered, status.coordinatorReachable, status.caughtUp(with: snapshot) else { return false }
                    }
                    return true
                }
                return nil
            } catch {
                return "  expected: the coordinator restarts and every node continues with it (K3, K7)\n  actual:   \(error)\n"
                    + (cluster.coordinator?.logTail(10) ?? "")
            }
        case .waitFor(let wait):
            let deadline = Date().addingTimeInterval(Double(wait.withinMilliseconds) / 1000)
            var seen: [Camsync_V1_AppEventRecord] = []
            var lastError: (any Error)?
            while true {
                do {
                    seen = try access.status(wait.node.rawValue, after: baseline, timeoutMilliseconds: 1_000).appEvents
                    if seen.contains(where: { record in
                        (wait.app == nil || record.app.bundleID == wait.app) && wait.event.matches(name: record.name, details: record.pairs)
                    }) { return nil }
                } catch {
                    lastError = error
                }
                if Date() >= deadline { break }
                usleep(50_000)
            }
            return "  expected: \(wait.node) logs \(wait.app.map { "\($0) " } ?? "")\(wait.event.text) within \(wait.withinMilliseconds) ms\n"
                + "  actual:   not seen" + (lastError.map { " (last error: \($0))" } ?? "") + "\n"
                + "  app events on \(wait.node) since the step began (seq > \(baseline)):\n" + format(seen)
        case .sleep(let ms):
            usleep(UInt32(ms) * 1000)
            return nil
        }
    }

    private func describe(_ refusal: Scenario.Refusal) -> String {
        switch refusal {
        case .code(let code): "code \(code)"
        case .message(let text): "with a message containing \"\(text)\""
        case .any: "any refusal"
        }
    }

    // MARK: Checks

    /// Polls every check until all hold or the step's bound passes; then reports what did not hold.
    private func check() -> String? {
        guard !step.expectations.isEmpty else { return nil }
        let deadline = Date().addingTimeInterval(Double(step.withinMilliseconds) / 1000)
        var failures: [(Scenario.Expectation, String)] = []
        while true {
            let observation = Observation(access: access, baseline: baseline)
            failures = step.expectations.compactMap { expectation in
                observation.evaluate(expectation).map { (expectation, $0) }
            }
            if failures.isEmpty { return nil }
            if Date() >= deadline { break }
            usleep(100_000)
        }
        var text = ""
        for (expectation, actual) in failures {
            text += "  ✗ \(expectation)\n      expected: \(Observation.expectedText(expectation))\n      actual:   \(actual)\n"
        }
        text += "  (checks polled for \(step.withinMilliseconds) ms)"
        var nodes: [NodeID] = []
        for (expectation, _) in failures {
            for node in Observation.relevantNodes(expectation) where !nodes.contains(node) { nodes.append(node) }
        }
        return text + eventSlice(nodes)
    }

    /// The app events of these nodes since the step began, for the failure text.
    private func eventSlice(_ nodes: [NodeID]) -> String {
        var text = ""
        for node in nodes where access.controls[node.rawValue] != nil {
            text += "\n  app events on \(node) since the step began (seq > \(baseline)):\n"
            do {
                text += format(try access.status(node.rawValue, after: baseline, timeoutMilliseconds: 1_000).appEvents)
            } catch {
                text += "    (unavailable: \(error))"
            }
        }
        return text
    }
}

func format(_ events: [Camsync_V1_AppEventRecord]) -> String {
    guard !events.isEmpty else { return "    (none)" }
    return events.map { event in
        "    seq=\(event.sequence) \(event.app.bundleID) \(event.name)" + event.details.map { " \($0.key)=\($0.value)" }.joined()
    }.joined(separator: "\n")
}

extension Camsync_V1_AppEventRecord {
    var pairs: [(String, String)] { details.map { ($0.key, $0.value) } }
}

/// One look at the cluster: the coordinator's snapshot and node statuses, fetched lazily.
final class Observation {
    let access: ClusterAccess
    let baseline: UInt64
    private var snapshotResult: Result<CoordinatorClient.Snapshot, any Error>?
    private var statuses: [String: Result<Camsync_V1_NodeStatus, any Error>] = [:]

    init(access: ClusterAccess, baseline: UInt64) {
        self.access = access
        self.baseline = baseline
    }

    func snapshot() throws -> CoordinatorClient.Snapshot {
        if snapshotResult == nil { snapshotResult = Result { try access.snapshot() } }
        return try snapshotResult!.get()
    }

    func status(_ node: String) throws -> Camsync_V1_NodeStatus {
        if statuses[node] == nil { statuses[node] = Result { try access.status(node, after: baseline) } }
        return try statuses[node]!.get()
    }

    static func relevantNodes(_ expectation: Scenario.Expectation) -> [NodeID] {
        switch expectation {
        case .session(let app, _), .scene(let app, _), .role(let app, _), .pip(let app, _, _, _), .audio(let app, _): [app.device]
        case .camera(let system, let holder, _, _):
            [system.host] + ((holder ?? nil).map { [$0.device] } ?? [])
        case .fence(let system, let holder, _): [system.host] + (holder.map { [$0.device] } ?? [])
        case .events(let node, _, _, _), .alertShown(let node, _), .multitasking(let node, _): [node]
        case .alive, .attached, .replicasAgree: []
        }
    }

    static func expectedText(_ expectation: Scenario.Expectation) -> String {
        switch expectation {
        case .session(_, let state): Scenario.describe(state)
        case .scene(_, let scene): scene.description
        case .role(_, let role): role?.rawValue ?? "none"
        case .audio(_, let pattern): pattern.description
        case .pip(_, let pip, let screen, let frame):
            pip.rawValue + (screen.map { " on \($0)" } ?? "") + (frame.map { " at \(Scenario.describe($0))" } ?? "")
        case .camera(_, let holder, let token, let pressure):
            [holder.map { "holder \($0?.description ?? "none")" }, token.map { "last token \($0)" },
             pressure.map { "pressure \(Scenario.describe($0))" }].compactMap { $0 }.joined(separator: ", ")
        case .fence(_, let holder, let token): "capturing: \(holder?.description ?? "nobody")" + (token.map { " (token \($0))" } ?? "")
        case .events(_, _, let inOrder, let absent):
            (inOrder.isEmpty ? "" : "in order: \(inOrder.map(\.text).joined(separator: " → "))")
                + (absent.isEmpty ? "" : (inOrder.isEmpty ? "" : "; ") + "none of: \(absent.map(\.text).joined(separator: ", "))")
        case .alive(_, let alive): alive ? "alive" : "dead"
        case .attached(_, let to): to?.rawValue ?? "none"
        case .alertShown(_, let shown): shown ? "shown" : "not shown"
        case .multitasking(_, let yes): yes ? "multitasking" : "not multitasking"
        case .replicasAgree: "each replica equal to the coordinator's state (a group's replica to its group's part) at its last batch"
        }
    }

    /// nil when the expectation holds, else what was seen.
    func evaluate(_ expectation: Scenario.Expectation) -> String? {
        do {
            return try evaluateThrowing(expectation)
        } catch {
            return "could not observe: \(error)"
        }
    }

    private func app(_ id: AppID) throws -> AppRecord? { try snapshot().state.apps[id] }

    private func evaluateThrowing(_ expectation: Scenario.Expectation) throws -> String? {
        switch expectation {
        case .session(let id, let expected):
            guard let app = try app(id) else { return "no app \(id) in the coordinator's state" }
            guard let session = app.session else { return "no capture session (never configured)" }
            return session.state == expected ? nil : Scenario.describe(session.state) + (session.wantsToRun ? " (wants to run)" : "")
        case .scene(let id, let pattern):
            guard let app = try app(id) else { return "no app \(id) in the coordinator's state" }
            return pattern.matches(app.scene) ? nil : Scenario.describe(app.scene)
        case .role(let id, let role):
            guard let app = try app(id) else { return "no app \(id) in the coordinator's state" }
            return app.role == role ? nil : (app.role?.rawValue ?? "none") + " (scene \(Scenario.describe(app.scene)))"
        case .audio(let id, let pattern):
            guard let app = try app(id) else { return "no app \(id) in the coordinator's state" }
            return pattern.matches(app.audioSession) ? nil : Scenario.AudioPattern.describe(app.audioSession)
        case .pip(let id, let pattern, let screen, let frame):
            guard let app = try app(id) else { return "no app \(id) in the coordinator's state" }
            let window = app.pip?.window ?? .inactive
            let actual: String
            var ok: Bool
            switch window {
            case .inactive:
                actual = app.pip == nil ? "inactive (no controller)" : "inactive"
                ok = pattern == .inactive
            case .suspended:
                actual = "suspended"
                ok = pattern == .suspended
            case .active(let s, let f, let stashed):
                actual = (stashed ? "stashed" : "active") + " on \(s) at \(Scenario.describe(f))"
                ok = pattern == (stashed ? .stashed : .active)
                if let screen, screen != s { ok = false }
                if let frame, frame != f { ok = false }
            }
            return ok ? nil : actual
        case .camera(let system, let holder, let token, let pressure):
            guard let record = try snapshot().state.cameraSystems[system] else {
                let known = try snapshot().state.cameraSystems.keys.sorted().map(\.description).joined(separator: ", ")
                return "no camera system \(system) (known: \(known))"
            }
            let actual = "holder \(record.holder?.description ?? "none"), last token \(record.lastToken.value), "
                + "pressure \(Scenario.describe(record.pressure))"
            if let holder, holder != record.holder { return actual }
            if let token, token != record.lastToken.value { return actual }
            if let pressure, pressure != record.pressure { return actual }
            return nil
        case .fence(let system, let holder, let token):
            let status = try status(system.host.rawValue)
            let entry = status.holders.first { (try? CameraSystemID(wire: $0.system)) == system }
            let actualApp = entry.flatMap { try? AppID(wire: $0.app) }
            let actual = entry.map { "capturing: \(actualApp?.description ?? "?") (token \($0.token))" } ?? "capturing: nobody"
            if actualApp != holder { return actual }
            if let token, entry?.token != token { return actual }
            return nil
        case .events(let node, let app, let inOrder, let absent):
            let nodeStatus = try status(node.rawValue)
            if !absent.isEmpty, nodeStatus.sequence < (try snapshot().sequence) {
                // "None of these happened" only means something once the node has applied the step.
                return "\(node) has applied sequence \(nodeStatus.sequence), the coordinator is at \(try snapshot().sequence)"
            }
            let events = nodeStatus.appEvents.filter { app == nil || $0.app.bundleID == app }
            var index = 0
            for event in events where index < inOrder.count {
                if inOrder[index].matches(name: event.name, details: event.pairs) { index += 1 }
            }
            let present = absent.filter { pattern in events.contains { pattern.matches(name: $0.name, details: $0.pairs) } }
            if index == inOrder.count && present.isEmpty { return nil }
            var actual = index < inOrder.count ? "missing \(inOrder[index].text) (after matching \(index) of \(inOrder.count))" : ""
            if !present.isEmpty { actual += (actual.isEmpty ? "" : "; ") + "present: \(present.map(\.text).joined(separator: ", "))" }
            return actual + " — seen: [" + events.map { e in
                e.name + (e.details.first { $0.key == "raw" }.map { "(\($0.value))" } ?? "")
            }.joined(separator: ", ") + "]"
        case .alive(let node, let alive):
            guard let record = try snapshot().state.nodes[node] else { return "\(node) has never registered" }
            return record.alive == alive ? nil : (record.alive ? "alive" : "dead")
        case .attached(let display, let to):
            guard let record = try snapshot().state.nodes[display] else { return "\(display) has never registered" }
            return record.attachedTo == to ? nil : (record.attachedTo?.rawValue ?? "none")
        case .alertShown(let device, let shown):
            let actual = try snapshot().state.recordingAlertShown.contains(device)
            return actual == shown ? nil : (actual ? "shown" : "not shown")
        case .multitasking(let device, let yes):
            let state = try snapshot().state
            let actual = state.isMultitasking(device: device)
            return actual == yes ? nil : (actual ? "multitasking" : "not multitasking")
                + " (visible: \(state.visibleApps(device: device).map(\.bundleID).joined(separator: ", ")))"
        case .replicasAgree:
            let coordinator = try snapshot()
            var problems: [String] = []
            for id in access.reachableNodes {
                let status = try access.status(id, after: UInt64.max - 1)
                if !status.caughtUp(with: coordinator) {
                    problems.append(status.group.isEmpty
                        ? "\(id) at sequence \(status.sequence) (synced \(status.synced)), coordinator at \(coordinator.sequence)"
                        : "\(id) at group \(status.group)'s batch \(status.groupSequence) (synced \(status.synced)), "
                          + "the coordinator's at \(coordinator.groupSequences[NodeID(status.group)])")
                } else if try !status.replicaAgrees(with: coordinator.state) {
                    problems.append("\(id)'s replica differs from the coordinator's state at sequence \(coordinator.sequence)")
                }
            }
            return problems.isEmpty ? nil : problems.joined(separator: "; ")
        }
    }
}

/// Errors collected from concurrent actions.
final class ErrorList: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ text: String) { list.withLock { $0.append(text) } }
    var all: [String] { list.withLock { $0 } }
}
