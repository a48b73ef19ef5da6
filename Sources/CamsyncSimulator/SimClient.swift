import CamsyncConfig
import CamsyncPolicy
import CamsyncHistory
import CamsyncWorkload
import CamsyncWire

/// A workload client, as the soak's: the soak's generator (every verb, audio included) sends one
/// command at a time, as the node it concerns, to the coordinator it follows by the one
/// leader-following rule (`FollowedLeader`, K7); it retries with the same request id (K5) after
/// 400 ms without an answer (moving to the next coordinator) or after a NOT_LEADER.
///
/// The second client sends every other command through the control path instead, as `camsync ctl
/// act` does: to the control socket of the node the command concerns, which forwards it as itself
/// (its own request id, its own retries, K5) and answers with the client's request id. That client
/// does not retry: the node does, and answers with an error when it gives up.
struct SimClient {
    let index: Int
    var workload: Workload
    var leader: FollowedLeader
    var current: (node: NodeID, command: Command, requestID: UInt64, bytes: [UInt8])?
    /// The current command went to its node's control socket (`ctl act`), not to a coordinator.
    var viaNode = false
    var attempts = 0
    var nextRequestID: UInt64
    var wakeToken = 0
    var stopped = false
    /// Waiting for an answer to the last send (a wake then means 400 ms of silence).
    var awaiting = false
    /// Commands to send before the workload's (the liveness phase's claim).
    var script: [(NodeID, Command)] = []

    var id: String { "client-\(index + 1)" }

    init(index: Int, seed: UInt64, coordinators: Int) {
        self.index = index
        workload = Workload(seed: seed)
        leader = FollowedLeader(endpoints: (0..<coordinators).map(SimTopology.commandEndpoint))
        nextRequestID = UInt64(index + 1) << 48
    }
}

extension Simulation {

    func scheduleClient(_ k: Int, after delay: Int64) {
        clients[k].wakeToken += 1
        scheduler.schedule(.clientWake(k, token: clients[k].wakeToken), at: now + delay)
    }

    /// Time to send: a retry of the current command, or the next one.
    func clientWakes(_ k: Int) {
        if clients[k].current == nil {
            let node: NodeID, command: Command
            if !clients[k].script.isEmpty {
                (node, command) = clients[k].script.removeFirst()
            } else {
                guard !clients[k].stopped, faultPhase else { return }
                (node, command) = clients[k].workload.next()
            }
            clients[k].nextRequestID += 1
            let requestID = clients[k].nextRequestID
            clients[k].current = (node, command, requestID,
                                  Envelope.request(command, sender: node.rawValue, requestID: requestID).serializedBytes())
            clients[k].attempts = 0
            clients[k].viaNode = k == 1 && clients[k].script.isEmpty && clients[k].nextRequestID % 2 == 0
                && nodeIndex[node.rawValue].map { nodes[$0].running } == true
            operations += 1
        } else if clients[k].viaNode {
            // The node never answered (it crashed, or stayed paused): the command's fate is unknown,
            // and unacknowledged.
            trace.note(now, "\(clients[k].id) hears nothing from \(clients[k].current!.node)'s control socket")
            clients[k].current = nil
            scheduleClient(k, after: 10_000)
            return
        } else if clients[k].awaiting {
            // No answer within 400 ms: that coordinator may be gone (K7: do not go back to it on hearsay).
            clients[k].leader.fellSilent(at: nowMilliseconds)
        }
        send(k)
    }

    private func send(_ k: Int) {
        guard let current = clients[k].current else { return }
        if clients[k].viaNode, let n = nodeIndex[current.node.rawValue] {
            clients[k].awaiting = true
            scheduler.schedule(.call { [unowned self] in nodeControl(n, from: k, current.bytes) }, at: now + SimTopology.controlDelay)
            scheduleClient(k, after: 20_000_000)   // the node retries for itself; it answers long before this
            return
        }
        clients[k].attempts += 1
        if clients[k].attempts > 200 {
            trace.note(now, "\(clients[k].id) gives up request \(current.requestID)")
            clients[k].current = nil
            scheduleClient(k, after: 10_000)
            return
        }
        let c = SimTopology.coordinator(endpoint: clients[k].leader.followed.commandEndpoint) ?? 0
        clients[k].awaiting = true
        for at in network.deliveries(from: .client(k), to: .coordinator(c), at: now, rng: &rng) {
            scheduler.schedule(.coordinatorFrame(c, generation: coordinators[c].generation, routingID: Array(clients[k].id.utf8),
                                                 bytes: current.bytes), at: at)
        }
        scheduleClient(k, after: 400_000)
    }

    func clientReceives(_ k: Int, _ bytes: [UInt8]) {
        guard let current = clients[k].current, let reply = try? Envelope.decode(bytes), reply.requestID == current.requestID else {
            return
        }
        trace.record(now, "\(clients[k].id) gets an answer to \(current.requestID) from \(clients[k].leader.followed): \(Self.describe(reply))",
                     20, Int64(k), bytes: bytes)
        clients[k].awaiting = false
        switch reply.body {
        case .error(let error)? where error.code == .notLeader:
            let decision = error.hasLeader
                ? clients[k].leader.named(commandEndpoint: error.leader.commandEndpoint, term: error.leader.term, by: .another,
                                          at: nowMilliseconds)
                : .ignored(.noEndpoint)
            if case .ignored(let why) = decision {
                trace.note(now, "\(clients[k].id) does not follow \(error.leader.commandEndpoint)@\(error.leader.term): \(why)")
                clients[k].leader.tryNext()
            }
            scheduleClient(k, after: 50_000)
            return
        case .ack(let ack)? where clients[k].viaNode:
            // The log holds the command under the request id the node forwarded it with.
            let wire = (try? Envelope.decode(current.bytes)).flatMap { envelope -> [UInt8]? in
                if case .command(let command)? = envelope.body { try? command.serializedBytes() } else { nil } }
            if let wire, let n = nodeIndex[current.node.rawValue], let forwarded = nodes[n].forwarded[wire] {
                acks.append(AcknowledgedCommand(node: current.node, requestID: forwarded, sequence: ack.sequence,
                                                command: current.command, ackedAt: wall))
                controlAcks += 1
            } else {
                violation("\(clients[k].id): \(current.node) acknowledged request \(current.requestID) without forwarding it")
            }
        case .ack(let ack)?:
            clients[k].leader.noteTerm(reply.term)
            acks.append(AcknowledgedCommand(node: current.node, requestID: current.requestID, sequence: ack.sequence,
                                            command: current.command, ackedAt: wall))
        default:
            clients[k].leader.noteTerm(reply.term)
        }
        clients[k].current = nil
        scheduleClient(k, after: Int64.random(in: 2_000...40_000, using: &rng))
    }
}

extension Simulation {
    /// An answer as the trace shows it.
    static func describe(_ reply: Envelope) -> String {
        switch reply.body {
        case .ack(let ack)?: "ack sequence \(ack.sequence)"
        case .error(let error)?: "\(error.code) \(error.message)"
        default: "\(reply.body.map { "\($0)" }?.prefix(60) ?? "nothing")"
        }
    }
}
