import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import ZeroMQ

/// A simulated node's command stream against HA coordinators (SPEC K6), following the leader as a
/// node does: one command at a time, every `intervalMilliseconds`, alternating `stop_session` and
/// `start_session` of its app 0; each command is retried with the same request id (K5) until it is
/// answered. Which coordinator it asks is `FollowedLeader`'s rule (SPEC K7, the node's too): no answer
/// within `retryMilliseconds` → the coordinator fell silent and the next one is tried; NOT_LEADER
/// naming a leader K7 lets it follow → the next attempt goes there (2 ms later), else to the next
/// coordinator; so a standby that has not seen the leader die yet does not send it back to the dead
/// one. An answer is the leader speaking: it is followed. Confined to one thread; `pump` does the work.
final class LeaderFollowingClient {
    struct Answer {
        /// The term of the reply envelope (the leader's term).
        var term: UInt64
        /// When it arrived (monotonic ns).
        var at: UInt64
        /// When its command was first sent (monotonic ns).
        var sentAt: UInt64
        var coordinator: Int
        var accepted: Bool
    }

    let node: String
    private let dealers: [ProtocolDealer]
    private let endpoints: [String]
    private let poller = Poller()
    private let intervalNanoseconds: UInt64
    private let retryNanoseconds: UInt64
    private var starting = true
    private var pending: (bytes: [UInt8], requestID: UInt64, since: UInt64)?
    private var attemptSentAt: UInt64 = 0
    private var resendAt: UInt64?
    private var nextCommandAt: UInt64 = 0
    private var leader: FollowedLeader
    /// The dealer of the coordinator followed.
    private var target: Int { endpoints.firstIndex(of: leader.followed.commandEndpoint) ?? 0 }
    private(set) var lastAnswer: Answer?
    private(set) var refused = 0
    /// The answers other than an ack or NOT_LEADER, by error code and message ("not an error" for another kind of reply).
    private(set) var refusals: [String: Int] = [:]

    /// `holding`: app 0 holds its camera (the first command is then a stop). `curve`: CURVE to
    /// coordinators serving with that key, as that (admin) pair.
    init(context: ZMQContext, commandEndpoints: [String], node: String, target: Int, holding: Bool = true,
         intervalMilliseconds: UInt64 = 2, retryMilliseconds: UInt64 = 20,
         curve: (serverKey: String, keys: CurveKeyPair)? = nil) throws {
        self.node = node
        endpoints = commandEndpoints
        dealers = try commandEndpoints.map { try ProtocolDealer(context: context, endpoint: $0, curve: curve) }
        for dealer in dealers { poller.register(dealer.socket, for: .readable) }
        intervalNanoseconds = intervalMilliseconds * 1_000_000
        retryNanoseconds = retryMilliseconds * 1_000_000
        // The list from `target` on, in the same cyclic order: silence moves along it.
        leader = FollowedLeader(endpoints: Array(commandEndpoints[target...] + commandEndpoints[..<target]))
        starting = holding
    }

    func close() { for dealer in dealers { dealer.close() } }

    /// Sends what is due, waits at most `milliseconds` for replies; returns the answers received
    /// (anything but NOT_LEADER to the current command).
    func pump(milliseconds: Int) throws -> [Answer] {
        var now = Clock.monotonicNanoseconds()
        if pending == nil, now >= nextCommandAt {
            starting.toggle()
            let command = starting ? SimulatedNode.start(node) : SimulatedNode.stop(node)
            let requestID = dealers[0].takeRequestID()
            pending = (Envelope.request(command, sender: node, requestID: requestID).serializedBytes(), requestID, now)
            try attempt(now)
        } else if pending != nil {
            if let due = resendAt, now >= due {
                try attempt(now)
            } else if resendAt == nil, now >= attemptSentAt + retryNanoseconds {
                leader.fellSilent(at: Int64(now / 1_000_000))
                try attempt(now)
            }
        }
        var answers: [Answer] = []
        let ready = try poller.poll(timeoutMs: milliseconds)
        now = Clock.monotonicNanoseconds()
        for item in ready {
            while let message = try dealers[item.index].socket.receive(dontWait: true) {
                let reply = try ProtocolDealer.decode(message)
                guard let current = pending, reply.requestID == current.requestID else { continue }
                if case .error(let error)? = reply.body, error.code == .notLeader {
                    // A leader at an endpoint this client has no dealer for is no leader to follow.
                    let named = error.hasLeader && endpoints.contains(error.leader.commandEndpoint)
                        ? leader.named(commandEndpoint: error.leader.commandEndpoint, term: error.leader.term, by: .another,
                                       at: Int64(now / 1_000_000))
                        : .ignored(.noEndpoint)
                    if named != .follow { leader.tryNext() }
                    resendAt = now + 2_000_000
                    continue
                }
                // The leader answers: its term is heard, and it is followed.
                leader.noteTerm(reply.term)
                _ = leader.named(commandEndpoint: endpoints[item.index], term: reply.term, by: .itself)
                var accepted = false
                if case .ack? = reply.body {
                    accepted = true
                } else {
                    refused += 1
                    let reason = if case .error(let error)? = reply.body { "\(error.code): \(error.message)" } else { "not an error" }
                    refusals[reason, default: 0] += 1
                }
                let answer = Answer(term: reply.term, at: now, sentAt: current.since, coordinator: item.index, accepted: accepted)
                answers.append(answer)
                lastAnswer = answer
                pending = nil
                resendAt = nil
                nextCommandAt = now + intervalNanoseconds
            }
        }
        return answers
    }

    private func attempt(_ now: UInt64) throws {
        guard let current = pending else { return }
        try dealers[target].sendBytes(current.bytes)
        attemptSentAt = now
        resendAt = nil
    }
}
