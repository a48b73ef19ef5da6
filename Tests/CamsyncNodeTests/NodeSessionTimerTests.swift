import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// K1, K5 without sockets: retries with the same request id on the connection that hears the
/// coordinator, coordinator silence and the reconnect back-off, and the deadline the shell polls to.
@Suite struct NodeSessionTimerTests {
    typealias H = NodeSessionHarness

    static func command(_ requestID: UInt64) -> [UInt8] {
        Envelope.request(.goHome(device: H.node), sender: "ctl", requestID: requestID).serializedBytes()
    }

    @Test("K5: a user's action is resent with the same request id each retry interval, then fails back to its caller")
    func retriesThenGivesUp() throws {
        var (session, _) = try H.joined(settings: H.settings(requestRetryMilliseconds: 100, requestAttempts: 3))
        let forwarded = try #require(session.receiveControl(identity: [7], frame: Self.command(42), now: H.at(1000)).sent.first)
        // (time of the tick, resent?, attempts afterwards; nil = given up)
        let steps: [(at: Int64, resent: Bool, attempts: Int?)] = [
            (1099, false, 1), (1100, true, 2), (1150, false, 2), (1200, true, 3), (1299, false, 3), (1300, false, nil),
        ]
        for step in steps {
            let actions = session.tick(now: H.at(step.at))
            #expect(actions.requests.map(\.requestID) == (step.resent ? [forwarded.requestID] : []), "at \(step.at)")
            #expect(actions.requests.allSatisfy { $0 == forwarded }, "a retry is the same request, byte for byte")
            #expect(session.pending[forwarded.requestID]?.attempts == step.attempts, "at \(step.at)")
            if step.attempts == nil {
                let reply = try #require(actions.controlReplies.first)
                #expect(reply.identity == [7])
                #expect(reply.envelope.requestID == 42)
                guard case .error(let error)? = reply.envelope.body else { Issue.record("not an error"); continue }
                #expect(error.code == .overloaded)
                #expect(error.message.contains("tcp://127.0.0.1:5555") && error.message.contains("3 attempts"))
            } else {
                #expect(actions.controlReplies.isEmpty)
            }
        }
    }

    @Test("K2: joining requests retry with their ids until answered; they never give up")
    func joiningRequestsRetryForever() throws {
        var session = NodeSession(settings: H.settings(requestRetryMilliseconds: 100, requestAttempts: 3), now: H.at(0))
        let register = try #require(session.start(now: H.at(0)).sent.first)
        for t in stride(from: Int64(100), through: 1000, by: 100) {
            _ = session.receivePublication(FakeCoordinator().heartbeat(), now: H.at(t))   // PUB is live
            let actions = session.tick(now: H.at(t))
            #expect(actions.sent.contains(register), "at \(t)")
            #expect(actions.controlReplies.isEmpty)
        }
        #expect(session.pending[register.requestID]?.attempts == 11)
        #expect(session.pending.values.contains { $0.isSnapshot })
    }

    @Test("pushes are heard but requests go unanswered: the connection is kept (it holds the route pushes take), requests retried on it")
    func unansweredRequestsKeepTheConnection() throws {
        var (session, coordinator) = try H.joined()
        let forwarded = try #require(session.receiveControl(identity: [7], frame: Self.command(42), now: H.at(1000)).sent.first)
        var resent: [Int64] = []
        for t in stride(from: Int64(1100), through: 4500, by: 100) {
            if t % 500 == 0 { _ = session.receivePublication(coordinator.heartbeat(), now: H.at(t)) }
            let actions = session.tick(now: H.at(t))
            #expect(actions.reconnects.isEmpty, "no connection reopened at \(t)")
            if actions.sent.contains(where: { $0.requestID == forwarded.requestID }) { resent.append(t) }
            #expect(!session.coordinatorSilent)
        }
        // Retried with its id every request-retry interval (1 s) on the same connection.
        #expect(resent == [2000, 3000, 4000])
        #expect(session.subscriptionLive)

        // Answered: nothing is unanswered any more.
        let answer = try coordinator.answer(forwarded)
        _ = session.receivePublication(try #require(answer.publication), now: H.at(4550))
        let relayed = session.receiveReply(answer.reply, now: H.at(4600))
        #expect(relayed.controlReplies.map(\.envelope.requestID) == [42])
        #expect(session.pending.isEmpty && session.replica.sequence == coordinator.sequence)
        for t in stride(from: Int64(4700), through: 8000, by: 100) {
            if t % 500 == 0 { _ = session.receivePublication(coordinator.heartbeat(), now: H.at(t)) }
            #expect(session.tick(now: H.at(t)).reconnects.isEmpty, "at \(t)")
        }
    }

    @Test("K1: coordinator silence → reconnect both sockets with back-off 0.5, 1, 2, 4, 8, 8 s; back → the replica continues (K7)")
    func silenceReconnectsWithBackoff() throws {
        var (session, coordinator) = try H.joined()   // last heard at 300
        // (reconnect time, back-off after it)
        let schedule: [(at: Int64, backoff: Int64)] = [
            (2350, 1000), (3350, 2000), (5350, 4000), (9350, 8000), (17350, 8000),
        ]
        var reconnects: [(at: Int64, backoff: Int64)] = []
        var silentSince: Int64?
        for t in stride(from: Int64(350), through: 20000, by: 50) {
            let actions = session.tick(now: H.at(t))
            if session.coordinatorSilent, silentSince == nil { silentSince = t }
            if !actions.reconnects.isEmpty {
                #expect(actions.reconnects == [true], "silence: both sockets are reopened")
                reconnects.append((t, session.reconnectDelay))
            }
            #expect(actions.sent.allSatisfy { $0.isNodeHeartbeat }, "nothing but heartbeats is sent at \(t)")
            // The shell polls until this deadline: one in the past would spin its loop while the coordinator is away.
            #expect(session.nextDeadline > t, "deadline \(session.nextDeadline) is not after \(t)")
        }
        #expect(silentSince == 1850, "silent once interval × liveness (1500 ms) has passed with nothing heard")
        #expect(reconnects.map(\.at) == schedule.map(\.at))
        #expect(reconnects.map(\.backoff) == schedule.map(\.backoff))
        #expect(!session.subscriptionLive && !session.isCoordinatorReachable)
        guard case .nodeStatus(let status)? = session.status(requestID: 1, afterSequence: 0).body else {
            Issue.record("not a node status"); return
        }
        #expect(!status.coordinatorReachable)

        // Heard again, nothing missed: the replica continues, no rejoin (K7); the back-off starts over.
        let back = session.receivePublication(coordinator.heartbeat(), now: H.at(20000))
        #expect(session.isCoordinatorReachable && session.reconnectDelay == 500)
        #expect(back.registrations.isEmpty && back.snapshotRequests.isEmpty)
        #expect(session.registered && session.replica.phase == .synced)
    }

    @Test("K1/K2: back after a silence in which batches were published → replay; declared dead meanwhile → rejoin")
    func backAfterMissedBatches() throws {
        var (session, coordinator) = try H.joined()   // last heard at 300
        for t in stride(from: Int64(350), through: 3000, by: 50) { _ = session.tick(now: H.at(t)) }
        #expect(session.coordinatorSilent)
        _ = try coordinator.publish(.declareNodeDead(H.node))   // lost: the SUB was cut
        let back = session.receivePublication(coordinator.heartbeat(), now: H.at(3100))
        #expect(back.registrations.isEmpty && back.snapshotRequests.isEmpty)
        let request = try #require(back.requests.first, "the heartbeat shows a batch was missed: replay")
        let replayed = session.receiveReply(try coordinator.answer(request).reply, now: H.at(3110))
        #expect(replayed.registrations.count == 1, "the replayed batch declares this node dead: rejoin")
    }

    @Test("the shell's poll deadline: the next heartbeat or retry, whichever is first",
          arguments: [(Int64(1000), [Int64(500), 1000]), (300, [300, 600])] as [(Int64, [Int64])])
    func deadline(retry: Int64, deadlines: [Int64]) {
        var session = NodeSession(settings: H.settings(requestRetryMilliseconds: retry), now: H.at(0))
        _ = session.start(now: H.at(0))
        #expect(session.nextDeadline == deadlines[0])
        _ = session.tick(now: H.at(deadlines[0]))
        #expect(session.nextDeadline == deadlines[1])
    }
}
