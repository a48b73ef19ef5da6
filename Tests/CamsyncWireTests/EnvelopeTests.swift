import CamsyncPolicy
import CamsyncWire
import Testing

@Suite("Envelope")
struct EnvelopeTests {
    @Test("the samples cover every body case")
    func bodyCoverage() {
        let cases = Set(Samples.envelopes.compactMap { $0.body.map(caseName) })
        #expect(cases == ["command", "snapshotRequest", "nodeHeartbeat", "nodeStatusRequest", "ack", "error", "snapshot",
                          "nodeStatus", "eventBatch", "coordinatorHeartbeat"])
    }

    @Test("every sample envelope round-trips through bytes", arguments: Samples.envelopes)
    func roundTrip(_ envelope: Envelope) throws {
        let bytes = envelope.serializedBytes()
        let decoded = try Envelope.decode(bytes)
        #expect(decoded == envelope)
        #expect(decoded.protocolVersion == WireProtocol.version)
        #expect(decoded.serializedBytes() == bytes)
    }

    @Test("a batch's envelope built from the batch's bytes is its encoding, byte for byte",
          arguments: Samples.envelopes.compactMap { envelope -> Camsync_V1_EventBatch? in
              if case .eventBatch(let batch)? = envelope.body { batch } else { nil }
          } + [Camsync_V1_EventBatch(), Camsync_V1_EventBatch.with { $0.term = 1 << 40; $0.sequence = 1 << 33 }])
    func encodedEventBatch(_ batch: Camsync_V1_EventBatch) throws {
        let bytes = Envelope.encodedEventBatch(try batch.serializedBytes(), term: batch.term)
        #expect(bytes == Envelope.eventBatch(batch).serializedBytes())
        #expect(try Envelope.decode(bytes) == .eventBatch(batch))
    }

    @Test("the command cut out of an encoded batch is the command's own encoding", arguments: Samples.commands)
    func commandOfEncodedBatch(_ command: Command) throws {
        var batch = Camsync_V1_EventBatch.with { $0.sequence = 300; $0.term = 2; $0.originNode = "ipad-1"; $0.originRequestID = 9 }
        batch.command = Camsync_V1_Command(command)
        batch.events = (Samples.envelopes.first { $0.eventBatch.events.count > 0 }?.eventBatch.events) ?? []
        #expect(WireCodec.command(ofEncodedBatch: try batch.serializedBytes()) == WireCodec.encode(command))
        #expect(WireCodec.command(ofEncodedBatch: try Camsync_V1_EventBatch().serializedBytes()) == nil)
        #expect(WireCodec.command(ofEncodedBatch: [0x32, 0x05, 0x01]) == nil, "a length past the end")
    }

    @Test("request envelopes give back their domain command", arguments: Samples.commands)
    func requestCommand(_ command: Command) throws {
        let envelope = try Envelope.decode(Envelope.request(command, sender: "ipad-1", requestID: 42, term: 7).serializedBytes())
        #expect(envelope.sender == "ipad-1" && envelope.requestID == 42 && envelope.term == 7)
        #expect(try envelope.domainCommand() == command)
    }

    @Test("a non-command envelope has no domain command")
    func noCommand() {
        #expect(throws: WireMappingError("command", .missing)) {
            try Envelope.ack(sequence: 1, requestID: 1, term: 1).domainCommand()
        }
    }

    @Test("replies copy the request id and carry the coordinator's sender")
    func replies() throws {
        let ack = try Envelope.decode(Envelope.ack(sequence: 99, requestID: 12, term: 5).serializedBytes())
        #expect(ack.sender == Envelope.coordinatorSender && ack.requestID == 12 && ack.term == 5)
        #expect(ack.ack.sequence == 99)
        let rejected = Envelope.rejection(Rejection(.requiresFullScreen, "L4"), requestID: 13, term: 5)
        #expect(rejected.error.code == .rejected && rejected.error.rejection == .requiresFullScreen)
        #expect(rejected.error.message == "L4")
    }

    @Test("other protocol versions are refused", arguments: [UInt32(0), 1, 3, 1_000, .max])
    func unsupportedVersion(_ version: UInt32) {
        var envelope = Envelope.nodeHeartbeat(sender: "ipad-1", time: .zero)
        envelope.protocolVersion = version
        #expect(throws: WireError.unsupportedVersion(version)) { try Envelope.decode(envelope.serializedBytes()) }
        #expect(WireError.unsupportedVersion(version).code == .unsupportedVersion)
        #expect("\(WireError.unsupportedVersion(version))".contains("a node's feed comes on its command connection"),
                "a client of protocol 1 is told what changed")
    }

    @Test("an envelope without a body is invalid")
    func noBody() {
        var envelope = Envelope()
        envelope.protocolVersion = WireProtocol.version
        envelope.sender = "ipad-1"
        #expect(throws: WireError.invalid(WireMappingError("body", .missing))) {
            try Envelope.decode(envelope.serializedBytes())
        }
    }

    @Test("wire errors become error replies with a stable code")
    func errorReplies() throws {
        let malformed = Camsync_V1_Error(WireError.malformed("truncated"))
        #expect(malformed.code == .malformed && malformed.message.contains("truncated"))
        let invalid = Camsync_V1_Error(WireMappingError("command.split.side", .unspecified))
        #expect(invalid.code == .malformed && invalid.message.contains("command.split.side is UNSPECIFIED"))
        let reply = Envelope.error(WireError.unsupportedVersion(2), requestID: 3, term: 1)
        #expect(reply.error.code == .unsupportedVersion && reply.requestID == 3)
    }
}

@Suite("Policy settings on the wire")
struct PolicySettingsWireTests {
    @Test("settings round-trip through a snapshot; replicas must run with the coordinator's")
    func roundTrip() throws {
        let settings = PolicySettings(stageWindowLimitPerScreen: 3, backgroundMediaMemoryLimitMB: 150,
                                      seriousPressureMaxFrameRate: 24, criticalPressureMaxFrameRate: 12,
                                      pipRestoreDeadlineMilliseconds: 900, maxHardwareCost: 1.0)
        let envelope = try Envelope.decode(Envelope.snapshot(ClusterState(), sequence: 1, term: 1, requestID: 1,
                                                             settings: settings).serializedBytes())
        guard case .snapshot(let snapshot)? = envelope.body else {
            Issue.record("not a snapshot")
            return
        }
        #expect(try snapshot.domainSettings() == settings)
    }

    @Test("missing or non-positive settings are refused, naming the field")
    func refused() {
        #expect(throws: WireMappingError("settings", .missing)) { try Camsync_V1_Snapshot().domainSettings() }
        var wire = Camsync_V1_PolicySettings(PolicySettings())
        wire.stageWindowLimitPerScreen = 0
        #expect(throws: WireMappingError.self) { try PolicySettings(wire: wire) }
    }
}
