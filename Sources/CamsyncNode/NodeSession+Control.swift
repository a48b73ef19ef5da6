import CamsyncPolicy
import CamsyncVerbs
import CamsyncWire

/// The local control socket: user/app actions forwarded as this node, and "what do you see".
extension NodeSession {

    /// One request from a local control client (`camsync ctl`): `identity` is its ROUTER routing id,
    /// `frame` the `Envelope` it sent. Bad input gets an error reply, never silence.
    public mutating func receiveControl(identity: [UInt8], frame: [UInt8], now: NodeTime) -> [NodeAction] {
        enter(now)
        let envelope: Envelope
        do {
            envelope = try Envelope.decode(frame)
        } catch {
            emit(.replyToControl(identity: identity, .error(error, requestID: Envelope.requestID(salvagedFrom: frame), term: knownTerm,
                                                            sender: id.rawValue)))
            return leave()
        }
        switch envelope.body {
        case .command:
            submit(envelope, from: identity)
        case .nodeStatusRequest(let request):
            emit(.replyToControl(identity: identity, status(requestID: envelope.requestID, afterSequence: request.afterSequence)))
        default:
            emit(.replyToControl(identity: identity, .error(Camsync_V1_Error(code: .unexpectedMessage,
                message: "a node's control socket takes command and node_status_request bodies"),
                requestID: envelope.requestID, term: knownTerm, sender: id.rawValue)))
        }
        return leave()
    }

    /// A user's or app's action (`request` has a `command` body), forwarded to the coordinator as this
    /// node. The wire command goes on as it arrived (the coordinator journals and publishes it as
    /// received); it must still map to a domain command, so bad input is answered here with the
    /// field at fault. The client's request id comes back on the answer.
    mutating func submit(_ request: Envelope, from identity: [UInt8]) {
        let command: Command
        do {
            command = try request.domainCommand()
        } catch {
            emit(.replyToControl(identity: identity, .error(Camsync_V1_Error(error), requestID: request.requestID,
                                                            term: knownTerm, sender: id.rawValue)))
            return
        }
        log(.info, "act", ["command": "\(command.words)"])
        send(Envelope(sender: id.rawValue, requestID: takeRequestID(), term: knownTerm, body: .command(request.command)),
             origin: .control(identity: identity, requestID: request.requestID, command: command))
    }
}
