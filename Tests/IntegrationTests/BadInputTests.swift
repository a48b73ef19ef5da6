import CamsyncClient
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Testing
import ZeroMQ

/// Bad input at the coordinator's ROUTER: an error reply with a code where a reply is possible,
/// and the coordinator keeps serving the next good command.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct BadInputTests {
    static func errorCode(_ reply: Envelope) -> Camsync_V1_ErrorCode? {
        if case .error(let error)? = reply.body { return error.code }
        return nil
    }

    @Test("garbage, truncated protobuf, wrong version, no body, unknown node, impersonation → error replies")
    func badFramesGetErrors() async throws {
        try await withCluster { cluster in
            let context = try ZMQContext()
            let raw = try CoordinatorClient(context: context, endpoint: cluster.commandEndpoint, sender: "ipad-2")
            defer { raw.close() }
            var rng = SystemRandomNumberGenerator()
            let garbage = (0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(Self.errorCode(try raw.sendRaw(garbage)) == .malformed)

            let good = Envelope.request(.goHome(device: "ipad-2"), sender: "ipad-2", requestID: 1).serializedBytes()
            #expect(Self.errorCode(try raw.sendRaw(Array(good.prefix(good.count - 3)))) == .malformed)

            var wrongVersion = Envelope.request(.goHome(device: "ipad-2"), sender: "ipad-2", requestID: 2)
            wrongVersion.protocolVersion = 99
            #expect(Self.errorCode(try raw.sendRaw(wrongVersion.serializedBytes())) == .unsupportedVersion)

            var noBody = Envelope.request(.goHome(device: "ipad-2"), sender: "ipad-2", requestID: 3)
            noBody.body = nil
            #expect(Self.errorCode(try raw.sendRaw(noBody.serializedBytes())) == .malformed)

            let stranger = try CoordinatorClient(context: context, endpoint: cluster.commandEndpoint, sender: "ipad-9")
            defer { stranger.close() }
            #expect(throws: ClientError.self) { try stranger.send(.goHome(device: "ipad-9")) }
            let unknown = try stranger.sendRaw(Envelope.request(.goHome(device: "ipad-9"), sender: "ipad-9", requestID: 9).serializedBytes())
            #expect(Self.errorCode(unknown) == .unknownNode)

            // ipad-2 acting for ipad-1's app: forbidden, nothing changes.
            let before = try cluster.coordinatorState()
            let impersonation = try raw.sendRaw(Envelope.request(.openFullScreen(Apps.camera1, trigger: .user),
                                                                 sender: "ipad-2", requestID: 10).serializedBytes())
            #expect(Self.errorCode(impersonation) == .forbidden)
            #expect(try cluster.coordinatorState().sequence == before.sequence)

            // The next good command is served.
            #expect(try raw.send(.goHome(device: "ipad-2")) == before.sequence + 1)
        }
    }

    @Test("bad audio actions (unknown app, impossible category/option pair, non-mixable from background) → a code and a message, nothing changes")
    func badAudioActionsAreRefused() async throws {
        try await withCluster { cluster in
            let control = try cluster.controlClient("ipad-1")
            defer { control.close() }
            // The call played and stopped in the foreground; now it is in the background, inactive.
            for command: Command in [.openFullScreen(Apps.call1, trigger: .user), .activateAudioSession(Apps.call1),
                                     .deactivateAudioSession(Apps.call1), .openFullScreen(Apps.notes1, trigger: .user)] {
                _ = try control.act(command)
            }
            let before = try cluster.coordinatorState()
            let bad: [(Command, Rejection.Code)] = [
                (.activateAudioSession(AppID(device: "ipad-1", bundleID: "com.example.ghost")), .unknownApp),
                (.setAudioCategory(Apps.notes1, AudioSessionConfiguration(category: .record, mixWithOthers: true)), .incompatibleCategoryOptions),
                (.activateAudioSession(Apps.call1), .cannotInterruptOthers),
            ]
            for (command, rejection) in bad {
                do {
                    _ = try control.act(command)
                    Issue.record("\(command) was accepted")
                } catch ClientError.refused(let refusal) {
                    #expect(refusal.code == .rejected && refusal.rejection?.code == rejection, "\(command): \(refusal)")
                    #expect(!refusal.message.isEmpty)
                }
            }
            let after = try cluster.coordinatorState()
            #expect(after.sequence == before.sequence && after.state == before.state, "a refusal changes nothing")
        }
    }

    @Test("an oversized frame disconnects its sender (MAXMSGSIZE); the coordinator keeps serving others")
    func oversizedFrame() async throws {
        try await withCluster(tcp: true) { cluster in
            let context = try ZMQContext()
            let big = try CoordinatorClient(context: context, endpoint: cluster.commandEndpoint, sender: "ipad-2")
            defer { big.close() }
            #expect(throws: ClientError.self) {
                _ = try big.sendRaw([UInt8](repeating: 7, count: 2 << 20), timeoutMilliseconds: 1_000)
            }
            let good = try CoordinatorClient(context: context, endpoint: cluster.commandEndpoint, sender: "ipad-2")
            defer { good.close() }
            let before = try cluster.coordinatorState().sequence
            #expect(try good.send(.goHome(device: "ipad-2")) == before + 1)
        }
    }
}
