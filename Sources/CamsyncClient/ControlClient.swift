public import CamsyncPolicy
public import CamsyncWire
public import ZeroMQ

/// Talks to one node's control socket: user/app actions (the real path: node → coordinator)
/// and "what do you see" (the node's replica, app-facing events and fence).
public final class ControlClient {
    public let node: String
    private let requests: RequestSocket

    public init(context: ZMQContext, endpoint: String, node: String = "") throws {
        self.node = node
        requests = try RequestSocket(context: context, endpoint: endpoint,
                                     hint: "is `camsync node` running with --control \(endpoint)?", curve: nil)
    }

    /// Sends a user/app action; returns the sequence number the coordinator gave it, or throws the refusal.
    @discardableResult
    public func act(_ command: Command, timeoutMilliseconds: Int = 15_000) throws -> UInt64 {
        let request = Envelope.request(command, sender: "ctl", requestID: requests.takeRequestID())
        let reply = try requests.roundTrip(request, timeoutMilliseconds: timeoutMilliseconds)
        switch reply.body {
        case .ack(let ack)?: return ack.sequence
        case .error(let error)?: throw ClientError.refused(Refusal(error))
        default: throw ClientError.unexpectedReply("\(reply.body.map { "\($0)" } ?? "no body") to a command")
        }
    }

    /// The node's view: replica, sync point, app events and fence (after `afterSequence`).
    public func status(afterSequence: UInt64 = 0, timeoutMilliseconds: Int = 5_000) throws -> Camsync_V1_NodeStatus {
        var request = Camsync_V1_NodeStatusRequest()
        request.afterSequence = afterSequence
        let envelope = Envelope(sender: "ctl", requestID: requests.takeRequestID(), body: .nodeStatusRequest(request))
        let reply = try requests.roundTrip(envelope, timeoutMilliseconds: timeoutMilliseconds)
        switch reply.body {
        case .nodeStatus(let status)?: return status
        case .error(let error)?: throw ClientError.refused(Refusal(error))
        default: throw ClientError.unexpectedReply("\(reply.body.map { "\($0)" } ?? "no body") to a status request")
        }
    }

    public func close() { requests.close() }
}
