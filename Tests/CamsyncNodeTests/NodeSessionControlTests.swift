import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// The control socket without sockets: actions forwarded as this node (the wire command as it
/// arrived), answers relayed with the client's request id, and bad input answered with a code.
@Suite struct NodeSessionControlTests {
    typealias H = NodeSessionHarness

    @Test("a forwarded command goes on as it arrived, as this node, and the answer comes back with the client's id")
    func forwardsTheWireCommand() throws {
        var (session, coordinator) = try H.joined()
        let wire = Camsync_V1_Command(.openFullScreen(H.app, trigger: .user))
        let request = Envelope(sender: "ctl", requestID: 42, term: 0, body: .command(wire))
        let actions = session.receiveControl(identity: [9, 9], frame: request.serializedBytes(), now: H.at(1000))
        let forwarded = try #require(actions.sent.first)
        #expect(actions.sent.count == 1 && actions.controlReplies.isEmpty)
        #expect(forwarded.command == wire)
        #expect(forwarded.sender == H.node.rawValue)
        #expect(forwarded.term == session.knownTerm)
        #expect(forwarded.requestID != 42, "the node's own request id (K5 windows are per sender)")
        let logged = actions.compactMap { action -> String? in
            guard case .log(_, "act", let metadata) = action else { return nil }
            return metadata["command"].map { "\($0)" }
        }
        #expect(logged == ["\(H.node) open \(H.app.bundleID)"], "the node's log says the action in the verb table's words")

        let answer = try coordinator.answer(forwarded)
        let relayed = session.receiveReply(answer.reply, now: H.at(1100))
        let reply = try #require(relayed.controlReplies.first)
        #expect(reply.identity == [9, 9])
        #expect(reply.envelope.requestID == 42)
        #expect(reply.envelope.sender == H.node.rawValue)
        guard case .ack(let ack)? = reply.envelope.body else { Issue.record("not an ack"); return }
        #expect(ack.sequence == coordinator.sequence)
    }

    /// A control request whose `command` carries a field this build does not know (a newer client's).
    static func requestWithUnknownField(_ command: Command) throws -> [UInt8] {
        func varint(_ value: Int) -> [UInt8] {
            var value = value, bytes: [UInt8] = []
            while value >= 0x80 { bytes.append(UInt8(value & 0x7F) | 0x80); value >>= 7 }
            return bytes + [UInt8(value)]
        }
        var header = Envelope()
        header.protocolVersion = WireProtocol.version
        header.sender = "ctl"
        header.requestID = 42
        var bare = Envelope()
        bare.command = Camsync_V1_Command(command)
        // bare = tag of field 10 (0x52), the length, the command's bytes.
        let encoded = bare.serializedBytes()
        let lengthEnd = try #require(encoded.dropFirst().firstIndex { $0 & 0x80 == 0 })
        let commandBytes = encoded[(lengthEnd + 1)...]
        let unknownField: [UInt8] = [0xB8, 0x3E, 0x01]   // field 999, varint 1
        return header.serializedBytes() + [0x52] + varint(commandBytes.count + unknownField.count) + commandBytes + unknownField
    }

    @Test("the forwarded command is the one that arrived, fields this node does not know included")
    func forwardsUnknownFields() throws {
        var (session, _) = try H.joined()
        let frame = try Self.requestWithUnknownField(.openFullScreen(H.app, trigger: .user))
        let arrived = try Envelope.decode(frame)
        let domain = try arrived.domainCommand()
        #expect(domain == .openFullScreen(H.app, trigger: .user))
        #expect(arrived.command != Camsync_V1_Command(domain), "the frame does carry an unknown field")
        let forwarded = try #require(session.receiveControl(identity: [1], frame: frame, now: H.at(1000)).sent.first)
        #expect(forwarded.command == arrived.command, "not decoded and re-encoded")
    }

    static func envelope(_ body: Envelope.OneOf_Body, version: UInt32 = WireProtocol.version) -> [UInt8] {
        var envelope = Envelope(sender: "ctl", requestID: 42, body: body)
        envelope.protocolVersion = version
        return envelope.serializedBytes()
    }

    static let badInput: [(name: String, frame: [UInt8], code: Camsync_V1_ErrorCode, requestID: UInt64)] = [
        ("not an envelope", [0xFF, 0xFF, 0xFF], .malformed, 0),
        ("another protocol version (its request id is still echoed)", envelope(.nodeStatusRequest(Camsync_V1_NodeStatusRequest()), version: 9), .unsupportedVersion, 42),
        ("a command with nothing in it", envelope(.command(Camsync_V1_Command())), .malformed, 42),
        ("a body meant for the coordinator's replies", envelope(.ack(Camsync_V1_Ack(sequence: 1))), .unexpectedMessage, 42),
    ]

    @Test("bad input on the control socket gets an error reply with a code, and nothing is forwarded",
          arguments: badInput.indices)
    func badInputIsAnswered(index: Int) throws {
        let input = Self.badInput[index]
        var (session, _) = try H.joined()
        let actions = session.receiveControl(identity: [3], frame: input.frame, now: H.at(1000))
        #expect(actions.sent.isEmpty, "\(input.name)")
        #expect(session.pending.isEmpty)
        let reply = try #require(actions.controlReplies.first)
        #expect(reply.identity == [3])
        #expect(reply.envelope.requestID == input.requestID, "\(input.name)")
        guard case .error(let error)? = reply.envelope.body else { Issue.record("\(input.name): not an error"); return }
        #expect(error.code == input.code, "\(input.name)")
        #expect(!error.message.isEmpty)
    }

    @Test("a refused PiP start is recorded as an app-facing event at the next sequence and relayed")
    func refusedPiPStartIsRecorded() throws {
        var (session, _) = try H.joined()
        let command = Envelope.request(.startPiP(H.app, trigger: .user), sender: "ctl", requestID: 8)
        let forwarded = try #require(session.receiveControl(identity: [1], frame: command.serializedBytes(), now: H.at(1000)).sent.first)
        var refusal = Camsync_V1_Error(code: .rejected, message: "no PiP controller")
        refusal.rejection = .noPipController
        refusal.pipFailure = .noController
        let reply = Envelope.error(refusal, requestID: forwarded.requestID, term: 1)
        let actions = session.receiveReply([reply.serializedBytes()], now: H.at(1100))
        #expect(actions.controlReplies.map(\.envelope.requestID) == [8])
        let event = try #require(session.appEvents.elements.last)
        #expect(event.name == "failedToStartPictureInPicture" && event.app == H.app)
        #expect(event.sequence == session.replica.sequence + 1)
        #expect(actions.history.contains(NodeHistoryEntry(app: event, node: H.node, at: H.at(1100).wall)))
    }
}
