import CamsyncPolicy
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

@Suite struct CoordinatorCoreTests {
    static let device = DeviceAttributes(model: "iPad", osMajor: 16, cameras: [CameraSpec(name: "front", position: .front)],
                                         apps: [AppSpec(bundleID: "com.example.notes")])
    static func register(_ node: NodeID) -> Command { .registerNode(NodeRegistration(node: node, attributes: .device(device))) }
    static let notes1 = AppID(device: "ipad-1", bundleID: "com.example.notes")

    func core() -> CoordinatorCore {
        CoordinatorCore(settings: CoordinatorSettings(dataDirectory: "", heartbeatIntervalMilliseconds: 250, liveness: 4, retryWindow: 4), term: 1)
    }

    @Test("authorisation: register only as yourself, act only for yourself, unknown nodes refused, admin may do anything")
    func authorisation() {
        var core = core()
        let t = Instant(milliseconds: 1)
        #expect(core.handle(Self.register("ipad-2"), from: "ipad-1", requestID: 1, isAdmin: false, at: t).outcome
                == .refused(.forbidden, message: "node 'ipad-1' cannot register as 'ipad-2'", rejection: nil))
        guard case .accepted(1, _) = core.handle(Self.register("ipad-1"), from: "ipad-1", requestID: 2, isAdmin: false, at: t).outcome
        else { Issue.record("registration refused"); return }
        guard case .accepted(2, _) = core.handle(Self.register("ipad-2"), from: "ipad-2", requestID: 1, isAdmin: false, at: t).outcome
        else { Issue.record("registration refused"); return }
        guard case .refused(.forbidden, _, _) = core.handle(.openFullScreen(Self.notes1, trigger: .user), from: "ipad-2",
                                                             requestID: 2, isAdmin: false, at: t).outcome
        else { Issue.record("ipad-2 acted for ipad-1's app"); return }
        guard case .refused(.unknownNode, _, _) = core.handle(.goHome(device: "ipad-9"), from: "ipad-9", requestID: 1,
                                                               isAdmin: false, at: t).outcome
        else { Issue.record("an unknown node was served"); return }
        guard case .refused(.forbidden, _, _) = core.handle(.declareNodeDead("ipad-1"), from: "ipad-2", requestID: 3,
                                                             isAdmin: false, at: t).outcome
        else { Issue.record("a node declared another dead"); return }
        guard case .accepted(3, _) = core.handle(.openFullScreen(Self.notes1, trigger: .user), from: "admin", requestID: 1,
                                                  isAdmin: true, at: t).outcome
        else { Issue.record("admin refused"); return }
        #expect(core.sequence == 3, "refusals do not take sequence numbers")
    }

    @Test("K5: a retry gets the original reply and is applied once; the window is bounded")
    func retries() {
        var core = core()
        let t = Instant(milliseconds: 1)
        let first = core.handle(Self.register("ipad-1"), from: "ipad-1", requestID: 7, isAdmin: false, at: t)
        let again = core.handle(Self.register("ipad-1"), from: "ipad-1", requestID: 7, isAdmin: false, at: t)
        #expect(!first.isRetry && again.isRetry)
        // The same reply (the ack of sequence 1); the events went out with the original only.
        guard case .accepted(1, let events) = first.outcome, !events.isEmpty else {
            Issue.record("registration not accepted with its events: \(first.outcome)")
            return
        }
        #expect(again.outcome == .accepted(sequence: 1, events: []))
        #expect(core.sequence == 1)
        for id in 100..<110 as Range<UInt64> {
            _ = core.handle(.goHome(device: "ipad-1"), from: "ipad-1", requestID: id, isAdmin: false, at: t)
        }
        #expect(!core.handle(Self.register("ipad-1"), from: "ipad-1", requestID: 7, isAdmin: false, at: t).isRetry,
                "request 7 fell out of a window of 4")
    }

    @Test("re-attaching a display to the device it is on is refused as a no-op, without a sequence (docs/PROTOCOL.md)")
    func reattachIsANoOp() throws {
        var core = core()
        let t = Instant(milliseconds: 1)
        let display = Command.registerNode(NodeRegistration(node: "display-1", attributes: .display(DisplayAttributes(name: "Studio Display"))))
        for (sender, command) in [("ipad-1", Self.register("ipad-1")), ("ipad-2", Self.register("ipad-2")), ("display-1", display)] {
            guard case .accepted = core.handle(command, from: sender, requestID: 1, isAdmin: false, at: t).outcome else {
                Issue.record("\(sender) not registered")
                return
            }
        }
        let attach = Command.attachDisplay(display: "display-1", device: "ipad-1")
        guard case .accepted(4, let events) = core.handle(attach, from: "admin", requestID: 1, isAdmin: true, at: t).outcome else {
            Issue.record("the first attach should be accepted at sequence 4")
            return
        }
        #expect(events == [.displayAttached(display: "display-1", device: "ipad-1")])
        let again = core.handle(attach, from: "admin", requestID: 2, isAdmin: true, at: t).outcome
        guard case .refused(.rejected, let message, let rejection?) = again else {
            Issue.record("the same attach again should be refused as a no-op, not \(again)")
            return
        }
        #expect(rejection.code == .alreadyExists)
        #expect(message == "display-1 is already attached to ipad-1: nothing to do")
        #expect(core.sequence == 4, "the no-op took no sequence")
        // To another device it is a move, accepted (admin, SPEC §1).
        guard case .accepted(5, _) = core.handle(.attachDisplay(display: "display-1", device: "ipad-2"), from: "admin", requestID: 3,
                                                 isAdmin: true, at: t).outcome
        else { Issue.record("the move to ipad-2 should be accepted"); return }
        // A log holding such an attach (written before this refusal) still replays.
        let replayed = core.replay(sequence: 6, node: "admin", requestID: 4, command: .attachDisplay(display: "display-1", device: "ipad-2"),
                                   at: t)
        #expect(replayed)
    }

    @Test("K1: a node silent longer than the timeout is reported, with grace after a restart")
    func liveness() {
        var core = core()
        core.beginServing(at: CoordinatorTime(monotonicMilliseconds: 10_000, wallMilliseconds: 0))
        _ = core.handle(Self.register("ipad-1"), from: "ipad-1", requestID: 1, isAdmin: false, at: Instant(milliseconds: 0))
        _ = core.handle(Self.register("ipad-2"), from: "ipad-2", requestID: 1, isAdmin: false, at: Instant(milliseconds: 0))
        core.noteTraffic(from: "ipad-1", at: 10_000)
        #expect(core.silentNodes(at: 10_500).isEmpty)
        core.noteTraffic(from: "ipad-1", at: 10_900)
        #expect(core.silentNodes(at: 11_200) == ["ipad-2"])
        #expect(core.nextLivenessDeadline() == 11_001)
    }
}

@Suite struct RetryWindowTests {
    @Test func evictsOldestFirst() {
        var window = RetryWindow<Int>(capacity: 2)
        window.remember(1, for: .init(node: "a", requestID: 1))
        window.remember(2, for: .init(node: "a", requestID: 2))
        window.remember(3, for: .init(node: "a", requestID: 3))
        #expect(window.reply(for: .init(node: "a", requestID: 1)) == nil)
        #expect(window.reply(for: .init(node: "a", requestID: 2)) == 2)
        #expect(window.reply(for: .init(node: "a", requestID: 3)) == 3)
        #expect(window.count == 2)
    }
}

@Suite struct BoundedRefusalTests {
    @Test("refusal texts stay short whatever the input (they live in the retry window)")
    func refusalsAreBounded() {
        var core = CoordinatorCore(settings: CoordinatorSettings(dataDirectory: "", heartbeatIntervalMilliseconds: 250, liveness: 4), term: 1)
        let huge = String(repeating: "x", count: 100_000)
        let (outcome, _) = core.handle(.goHome(device: NodeID(huge)), from: huge, requestID: 1, isAdmin: false,
                                       at: Instant(milliseconds: 0))
        guard case .refused(_, let message, _) = outcome else {
            Issue.record("expected a refusal")
            return
        }
        #expect(message.count <= 513)
    }
}
