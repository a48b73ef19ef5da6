import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// Least privilege for reads (docs/PROTOCOL.md "Authorisation"): under CURVE a node's key reads its
/// own device group's snapshot and replay, and subscribes to its own feed and `hb`; anything else
/// is refused with FORBIDDEN and counted. An admin's key reads everything.
@Suite struct CoordinatorReadTests {
    typealias R = CoordinatorReceiveTests
    static let security = CoordinatorSecurity(secretKey: "s", nodeKeys: ["ipad-1": "KEY1", "ipad-2": "KEY2"],
                                              adminKeys: ["ADMIN"])

    enum Read: Sendable, CustomStringConvertible {
        case snapshot(group: String, mine: Bool)
        case replay(group: String)

        var description: String {
            switch self {
            case .snapshot(let group, let mine): mine ? "snapshot of my group" : "snapshot of '\(group)'"
            case .replay(let group): "replay of '\(group)'"
            }
        }

        func envelope(sender: String) -> Envelope {
            switch self {
            case .snapshot(let group, let mine):
                var request = Camsync_V1_SnapshotRequest()
                request.group = group
                request.onlyMyGroup = mine
                return Envelope(sender: sender, requestID: 9, term: 0, body: .snapshotRequest(request))
            case .replay(let group):
                var request = Camsync_V1_ReplayRequest()
                request.group = group
                return Envelope(sender: sender, requestID: 9, term: 0, body: .replayRequest(request))
            }
        }
    }

    /// A CURVE coordinator with ipad-1 and ipad-2 registered, each by its own key.
    static func cluster(snapshotsPerTurn: Int = 64, snapshotBacklog: Int = 20_000) -> CoordinatorCore {
        var core = R.core(security: security, snapshotsPerTurn: snapshotsPerTurn, snapshotBacklog: snapshotBacklog)
        for (node, key) in [("ipad-1", "KEY1"), ("ipad-2", "KEY2")] {
            _ = core.receiveTurn(R.frame(R.register(NodeID(node)), route: Array(node.utf8), userID: key), at: R.at(1))
            for case .commit(let commit) in core.endTurn(at: R.at(1)) { _ = core.turnCommitted(commit.id, at: R.at(1)) }
        }
        return core
    }

    @Test("who may read which group", arguments: [
        ("ipad-1", "KEY1", Read.snapshot(group: "", mine: true), true),
        ("ipad-1", "KEY1", Read.snapshot(group: "ipad-1", mine: false), true),
        ("ipad-1", "KEY1", Read.replay(group: "ipad-1"), true),
        ("ipad-1", "KEY1", Read.snapshot(group: "ipad-2", mine: false), false),
        ("ipad-1", "KEY1", Read.replay(group: "ipad-2"), false),
        ("ipad-1", "KEY1", Read.snapshot(group: "", mine: false), false),   // the whole state
        ("ipad-1", "KEY1", Read.replay(group: ""), false),                  // every batch
        ("admin", "ADMIN", Read.snapshot(group: "", mine: false), true),
        ("admin", "ADMIN", Read.snapshot(group: "ipad-2", mine: false), true),
        ("admin", "ADMIN", Read.replay(group: ""), true),
    ] as [(String, String, Read, Bool)])
    func reads(sender: String, key: String, read: Read, served: Bool) {
        var core = Self.cluster()
        let actions = core.receiveTurn(R.frame(read.envelope(sender: sender), route: Array(sender.utf8), userID: key), at: R.at(2))
            + core.endTurn(at: R.at(2))
        let replies = R.replies(actions)
        #expect(replies.count == 1)
        if served {
            #expect(!replies.contains { if case .error? = $0.body { true } else { false } }, "\(replies)")
            #expect(!actions.contains(.count(.readRefused)))
        } else {
            guard case .error(let error)? = replies.first?.body else { Issue.record("not refused: \(replies)"); return }
            #expect(error.code == .forbidden && error.message.contains("its own device group"))
            #expect(actions.contains(.count(.readRefused)))
        }
    }

    @Test("the event socket's gate: a node's key subscribes to nothing (its feed is pushed); admins and lab mode to anything",
          arguments: [
        ("KEY1", EventTopic.node("ipad-1"), false),       // its own feed: pushed on its command connection
        ("KEY1", EventTopic.heartbeat, false),
        ("KEY1", EventTopic.node("ipad-2"), false),
        ("KEY1", EventTopic.everyBatch, false),
        ("KEY1", "ev.", false),                        // a prefix of every feed
        ("KEY1", "", false),                           // everything
        ("KEY1", "ev.ipad-1", false),                  // unterminated: ipad-10's feed too
        ("KEY1", CoordinatorCore.pulseTopic, false),
        ("ADMIN", "", true),
        ("ADMIN", EventTopic.node("ipad-2"), true),
        ("COORDINATOR", CoordinatorCore.pulseTopic, true),   // a standby's key (admitted by ZAP, bound to no node)
    ] as [(String, String, Bool)])
    func subscriptions(key: String, topic: String, admitted: Bool) {
        let verdict = SubscriptionGate(security: Self.security).verdict(topic: Array(topic.utf8), key: key)
        #expect((verdict == .admit) == admitted, "\(verdict)")
        #expect(SubscriptionGate(security: nil).verdict(topic: Array(topic.utf8), key: nil) == .admit, "lab mode checks nothing")
    }

    @Test("a key bound to two nodes reads neither feed there; a connection without a key reads nothing under CURVE")
    func sharedAndMissingKeys() {
        let gate = SubscriptionGate(security: CoordinatorSecurity(secretKey: "s", nodeKeys: ["tv-1": "K", "tv-2": "K"], adminKeys: []))
        #expect(gate.verdict(topic: Array(EventTopic.node("tv-1").utf8), key: "K") != .admit)
        #expect(gate.verdict(topic: Array(EventTopic.node("tv-2").utf8), key: "K") != .admit)
        #expect(gate.verdict(topic: Array(EventTopic.heartbeat.utf8), key: nil) != .admit)
    }

    /// A mass rejoin costs bounded turns: one turn serves `snapshotsPerTurn` snapshot requests, the
    /// next ones wait in the backlog (up to `snapshotBacklog`) for the turns after it, in order, and the
    /// rest are answered OVERLOADED (their nodes ask again at the next heartbeat).
    @Test("a turn serves snapshotsPerTurn snapshots, the backlog waits for the next turns, beyond it OVERLOADED")
    func snapshotsPerTurn() throws {
        var core = Self.cluster(snapshotsPerTurn: 1, snapshotBacklog: 1)
        let ask = { (node: String, key: String, id: UInt64) in
            var envelope = Read.snapshot(group: "", mine: true).envelope(sender: node)
            envelope.requestID = id
            return R.frame(envelope, route: Array(node.utf8), userID: key)
        }
        let first = core.runTurn(at: R.at(2)) { core in
            core.receive(ask("ipad-1", "KEY1", 1), at: R.at(2)) + core.receive(ask("ipad-2", "KEY2", 2), at: R.at(2))
                + core.receive(ask("ipad-1", "KEY1", 3), at: R.at(2))
        }
        let isSnapshot = { (envelope: Envelope) in if case .snapshot? = envelope.body { true } else { false } }
        #expect(R.replies(first).filter(isSnapshot).map(\.requestID) == [1], "one served this turn")
        #expect(R.replies(first).contains { if case .error(let error)? = $0.body { error.code == .overloaded && $0.requestID == 3 } else { false } },
                "the third is beyond the backlog: OVERLOADED")
        #expect(core.nextDeadline(at: R.at(2)) == 2, "the backlog makes the next turn due at once")
        let second = core.tickTurn(at: R.at(3))
        #expect(R.replies(second).filter(isSnapshot).map(\.requestID) == [2], "the backlog's is served by the next turn")
        #expect(core.leaderWork?.snapshotBacklog.isEmpty == true)
    }

    /// A mass rejoin costs bounded turns for registrations too: a turn admits `registrationsPerTurn`
    /// new ones and answers the rest OVERLOADED (their nodes ask again after a back-off); a retry of an
    /// accepted registration gets its ack whatever the count.
    @Test("a turn admits registrationsPerTurn registrations, the rest OVERLOADED; a retry of an accepted one is answered")
    func registrationsPerTurn() {
        var core = R.core(registrationsPerTurn: 2)
        let register = { (n: Int, id: UInt64) in R.frame(R.register(NodeID("ipad-\(n)"), requestID: id), route: Array("ipad-\(n)".utf8)) }
        let first = core.runTurn(at: R.at(1)) { core in (1...3).flatMap { core.receive(register($0, 1), at: R.at(1)) } }
        let answers = R.replies(first)
        #expect(answers.filter { if case .ack? = $0.body { true } else { false } }.count == 2, "two admitted")
        #expect(answers.contains { if case .error(let error)? = $0.body { error.code == .overloaded } else { false } }, "the third: OVERLOADED")
        #expect(core.state.nodes["ipad-3"] == nil, "and not registered")
        let second = core.runTurn(at: R.at(2)) { core in
            core.receive(register(4, 1), at: R.at(2)) + core.receive(register(5, 1), at: R.at(2)) + core.receive(register(1, 1), at: R.at(2))
        }
        #expect(R.replies(second).filter { if case .ack? = $0.body { true } else { false } }.count == 3,
                "a new turn admits two more, and ipad-1's retry gets its original ack")
    }
}
