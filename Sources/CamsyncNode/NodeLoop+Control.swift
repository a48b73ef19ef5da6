import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ

/// The local control socket: user/app actions forwarded as this node, and "what do you see".
extension NodeLoop {

    func drainControl() throws {
        while let message = try control.receive(dontWait: true) {
            guard message.frames.count == 2, let identity = message.frames.first else { continue }
            let envelope: Envelope
            do {
                envelope = try Envelope.decode(message.frames[1])
            } catch {
                replyToControl(identity, .error(error, requestID: 0, term: knownTerm, sender: id.rawValue))
                continue
            }
            switch envelope.body {
            case .command:
                let command: Command
                do {
                    command = try envelope.domainCommand()
                } catch {
                    replyToControl(identity, .error(Camsync_V1_Error(error), requestID: envelope.requestID,
                                                    term: knownTerm, sender: id.rawValue))
                    continue
                }
                send(.request(command, sender: id.rawValue, requestID: takeRequestID(), term: knownTerm),
                     origin: .control(identity: identity, requestID: envelope.requestID, command: command))
            case .nodeStatusRequest(let request):
                replyToControl(identity, statusEnvelope(requestID: envelope.requestID, afterSequence: request.afterSequence))
            default:
                replyToControl(identity, .error(Camsync_V1_Error(code: .unexpectedMessage,
                    message: "a node's control socket takes command and node_status_request bodies"),
                    requestID: envelope.requestID, term: knownTerm, sender: id.rawValue))
            }
        }
    }

    func replyToControl(_ identity: [UInt8], _ envelope: Envelope) {
        _ = try? control.send([identity, envelope.serializedBytes()], dontWait: true)
    }
}
