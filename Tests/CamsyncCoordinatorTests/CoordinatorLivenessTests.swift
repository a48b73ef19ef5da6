import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// K1 with the liveness check that does not look at every node each turn (`LivenessDeadlines`): every
/// node is still declared dead at the first tick past its own timeout of silence, as a check of
/// every node at every tick would, whatever traffic the others sent in between, and a node declared
/// dead that registers again is watched again.
@Suite("CoordinatorCore: K1 declarations at the first tick past each node's own silence")
struct CoordinatorLivenessTests {
    /// Heartbeat times (monotonic ms) of ipad-1 and ipad-2, both registered at 100; timeout 1,000 ms.
    @Test(arguments: [
        ([Int64](), [Int64]()),
        ([600], []),
        ([], [300, 1_050, 1_900]),
        ([1_099], [1_000, 2_000, 2_999]),
        ([150, 900, 1_800, 2_700], [450]),
    ])
    func declaredAsAFullCheckWould(_ first: [Int64], _ second: [Int64]) {
        var core = CoordinatorReceiveTests.core()
        let nodes: [NodeID] = ["ipad-1", "ipad-2"]
        for (k, node) in nodes.enumerated() {
            _ = core.receiveTurn(CoordinatorReceiveTests.frame(CoordinatorReceiveTests.register(node, requestID: UInt64(k + 1)),
                                                              route: Array(node.rawValue.utf8)), at: CoordinatorReceiveTests.at(100))
        }
        let heartbeats = [nodes[0]: first, nodes[1]: second]
        var lastSeen = [nodes[0]: Int64(100), nodes[1]: Int64(100)]
        var expected: [NodeID: Int64] = [:], declared: [NodeID: Int64] = [:]
        for now in stride(from: Int64(101), through: 4_000, by: 1) {
            for node in nodes where heartbeats[node]!.contains(now) && expected[node] == nil {
                let heartbeat = Envelope.nodeHeartbeat(sender: node.rawValue, time: Instant(milliseconds: now))
                _ = core.receiveTurn(CoordinatorReceiveTests.frame(heartbeat, route: Array(node.rawValue.utf8)),
                                     at: CoordinatorReceiveTests.at(now))
                lastSeen[node] = now
            }
            // The shell ticks when traffic arrives and at `nextDeadline`; here at every millisecond.
            for node in nodes where expected[node] == nil && now - lastSeen[node]! > core.livenessTimeoutMilliseconds {
                expected[node] = now
            }
            let actions = core.tickTurn(at: CoordinatorReceiveTests.at(now))
            for entry in CoordinatorReceiveTests.appends(actions) {
                if case .declareNodeDead(let node) = try? WireCodec.decodeCommand(entry.command) { declared[node] = now }
            }
        }
        #expect(declared == expected)
        #expect(declared.count == 2, "both fall silent in the end")
    }

    /// ipad-1 registers at 100 and at each of `registrations`, and is silent otherwise; ipad-2 keeps
    /// talking every 100 ms. Each of ipad-1's lives ends at the first millisecond past its timeout
    /// (1,000 ms): `lives` declarations in all (registering while alive extends the same life).
    @Test(arguments: [([Int64](), 1), ([1_500], 2), ([1_500, 3_000], 3), ([700, 2_200], 2)])
    func aNodeThatRegistersAgainIsWatchedAgain(_ registrations: [Int64], _ lives: Int) {
        var core = CoordinatorReceiveTests.core()
        var requestID: UInt64 = 0
        func register(_ node: NodeID, at now: Int64) {
            requestID += 1
            _ = core.receiveTurn(CoordinatorReceiveTests.frame(CoordinatorReceiveTests.register(node, requestID: requestID),
                                                              route: Array(node.rawValue.utf8)), at: CoordinatorReceiveTests.at(now))
        }
        register("ipad-1", at: 100)
        register("ipad-2", at: 100)
        let timeout = core.livenessTimeoutMilliseconds
        var registered: Int64 = 100, expected: [Int64] = [], declared: [Int64] = []
        for now in stride(from: Int64(101), through: 5_000, by: 1) {
            if registrations.contains(now) {
                register("ipad-1", at: now)
                registered = now
            }
            if now % 100 == 0 {
                let heartbeat = Envelope.nodeHeartbeat(sender: "ipad-2", time: Instant(milliseconds: now))
                _ = core.receiveTurn(CoordinatorReceiveTests.frame(heartbeat, route: Array("ipad-2".utf8)), at: CoordinatorReceiveTests.at(now))
            }
            if now - registered == timeout + 1 { expected.append(now) }
            for entry in CoordinatorReceiveTests.appends(core.tickTurn(at: CoordinatorReceiveTests.at(now))) {
                if case .declareNodeDead(let node) = try? WireCodec.decodeCommand(entry.command) {
                    #expect(node == "ipad-1", "ipad-2 talks all along")
                    declared.append(now)
                }
            }
        }
        #expect(declared == expected)
        #expect(declared.count == lives)
    }
}

/// K1/K7: silence is judged up to the last instant the loop had read every frame waiting
/// (`heardEverything(at:)`), not up to the clock: a leader that fell behind its queue (its thread
/// starved after it took its frames) declares no one dead for heartbeats that wait unread, and
/// declares the silent node once it has caught up.
@Suite("CoordinatorCore: silence judged up to the last instant everything waiting was read")
struct CoordinatorHeardEverythingTests {
    @Test func aLeaderBehindItsQueueDeclaresNoOne() {
        var core = CoordinatorReceiveTests.core()
        _ = core.receiveTurn(CoordinatorReceiveTests.frame(CoordinatorReceiveTests.register("ipad-1", requestID: 1),
                                                          route: Array("ipad-1".utf8)), at: CoordinatorReceiveTests.at(100))
        core.heardEverything(at: CoordinatorReceiveTests.at(100))
        let timeout = core.livenessTimeoutMilliseconds
        func declared(at now: Int64) -> [NodeID] {
            CoordinatorReceiveTests.appends(core.tickTurn(at: CoordinatorReceiveTests.at(now))).compactMap {
                if case .declareNodeDead(let node)? = try? WireCodec.decodeCommand($0.command) { node } else { nil }
            }
        }
        // Stalled since 100: the clock is far past the timeout, what was read is not.
        #expect(declared(at: 100 + 3 * timeout) == [])
        // Caught up (the socket found empty) at a time within the timeout: still alive.
        core.heardEverything(at: CoordinatorReceiveTests.at(100 + timeout))
        #expect(declared(at: 100 + 3 * timeout + CoordinatorCore.catchingUpRecheck) == [])
        // Caught up past the timeout, listening all along (every half timeout), nothing heard from it: declared.
        for heard in stride(from: 100 + timeout + timeout / 2, through: 100 + 3 * timeout, by: Int(timeout / 2)) {
            core.heardEverything(at: CoordinatorReceiveTests.at(heard))
        }
        core.heardEverything(at: CoordinatorReceiveTests.at(100 + 3 * timeout + 10))
        #expect(declared(at: 100 + 3 * timeout + 10) == ["ipad-1"])
    }

    /// A leader deaf for longer than a liveness timeout (paused, starved: no frames phase found its
    /// socket empty meanwhile) gives every node a full timeout from when it hears again (K7).
    @Test func aLeaderDeafForATimeoutStartsItsClocksAfresh() {
        var core = CoordinatorReceiveTests.core()
        _ = core.receiveTurn(CoordinatorReceiveTests.frame(CoordinatorReceiveTests.register("ipad-1", requestID: 1),
                                                          route: Array("ipad-1".utf8)), at: CoordinatorReceiveTests.at(100))
        core.heardEverything(at: CoordinatorReceiveTests.at(100))
        let timeout = core.livenessTimeoutMilliseconds
        let resumed: Int64 = 100 + 5 * timeout
        core.heardEverything(at: CoordinatorReceiveTests.at(resumed))
        func declared(at now: Int64) -> [NodeID] {
            CoordinatorReceiveTests.appends(core.tickTurn(at: CoordinatorReceiveTests.at(now))).compactMap {
                if case .declareNodeDead(let node)? = try? WireCodec.decodeCommand($0.command) { node } else { nil }
            }
        }
        #expect(declared(at: resumed) == [], "silent for five timeouts, but the leader was deaf for them")
        core.heardEverything(at: CoordinatorReceiveTests.at(resumed + timeout / 2))   // listening again
        core.heardEverything(at: CoordinatorReceiveTests.at(resumed + timeout + 1))
        #expect(declared(at: resumed + timeout + 1) == ["ipad-1"], "a full timeout after it heard again")
    }
}
