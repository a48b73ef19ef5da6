import CamsyncPolicy
import CamsyncWire
import SwiftProtobuf
import Testing

/// domain → wire → bytes → wire → domain.
private func throughBytes<M: SwiftProtobuf.Message>(_ message: M) throws -> M {
    let bytes: [UInt8] = try message.serializedBytes()
    return try M(serializedBytes: bytes)
}

@Suite("Domain ↔ wire mapping")
struct MappingRoundTripTests {
    @Test("every Command case has a sample")
    func commandSamplesCoverEveryCase() {
        #expect(Set(Samples.commands.map(caseName)).count == Samples.commandCaseCount)
        #expect(Set(Samples.commands.map { Camsync_V1_Command($0).kind.map(caseName) }).count == Samples.commandCaseCount)
    }

    @Test("Command round-trips through bytes", arguments: Samples.commands)
    func commandRoundTrip(_ command: Command) throws {
        let wire = try throughBytes(Camsync_V1_Command(command))
        #expect(wire == Camsync_V1_Command(command))
        #expect(try Command(wire: wire) == command)
    }

    @Test("every Event case has a sample")
    func eventSamplesCoverEveryCase() {
        #expect(Set(Samples.events.map(caseName)).count == Samples.eventCaseCount)
        #expect(Set(Samples.events.map { Camsync_V1_Event($0).kind.map(caseName) }).count == Samples.eventCaseCount)
    }

    @Test("Event round-trips through bytes", arguments: Samples.events)
    func eventRoundTrip(_ event: Event) throws {
        let wire = try throughBytes(Camsync_V1_Event(event))
        #expect(try Event(wire: wire) == event)
    }

    @Test("ClusterState round-trips through bytes")
    func clusterStateRoundTrip() throws {
        let state = Samples.clusterState()
        #expect(state.nodes.count == 3 && state.apps.count == 4 && state.cameraSystems.count == 2)
        let wire = try throughBytes(Camsync_V1_ClusterState(state))
        #expect(wire.nodes.map(\.id) == ["display-1", "display-2", "ipad-1"])
        #expect(wire.recordingAlertShown == ["ipad-0", "ipad-1", "ipad-9"])
        #expect(try ClusterState(wire: wire) == state)
    }

    @Test("an empty ClusterState round-trips")
    func emptyClusterState() throws {
        let wire = try throughBytes(Camsync_V1_ClusterState(ClusterState()))
        #expect(try ClusterState(wire: wire) == ClusterState())
    }

    @Test("Snapshot carries the state", arguments: [UInt64(0), 1, .max])
    func snapshot(sequence: UInt64) throws {
        let wire = try throughBytes(Camsync_V1_Snapshot(sequence: sequence, term: 4, state: Samples.clusterState()))
        #expect(wire.sequence == sequence && wire.term == 4)
        #expect(try wire.domainState() == Samples.clusterState())
    }

    @Test("EventBatch carries the command and events in order")
    func eventBatch() throws {
        let batch = try throughBytes(Camsync_V1_EventBatch(
            sequence: 9, term: 2, time: Instant(milliseconds: -5), originNode: "ipad-1", originRequestID: 77,
            command: .movePiP(Samples.tv, screen: Samples.display, frame: Samples.frame), events: Samples.events))
        #expect(batch.time == Instant(milliseconds: -5) && batch.originNode == "ipad-1" && batch.originRequestID == 77)
        #expect(try batch.domainCommand() == .movePiP(Samples.tv, screen: Samples.display, frame: Samples.frame))
        #expect(try batch.domainEvents() == Samples.events)
    }

    static let rejections: [Rejection] = Rejection.Code.allCases.map { Rejection($0, "because \($0.rawValue)") }
        + PiPFailureReason.allCases.map { Rejection(.pipNotPossible, "pip", pipFailure: $0) }

    @Test("Rejection ↔ Error (REJECTED)", arguments: rejections)
    func rejectionRoundTrip(_ rejection: Rejection) throws {
        let wire = try throughBytes(Camsync_V1_Error(rejection))
        #expect(wire.code == .rejected)
        #expect(try Rejection(wire: wire) == rejection)
    }

    @Test("an Error that is not REJECTED is not a Rejection")
    func nonRejectedError() {
        let error = Camsync_V1_Error(code: .forbidden, message: "nope")
        #expect(throws: WireMappingError("code", .inconsistent("forbidden is not ERROR_CODE_REJECTED"))) {
            try Rejection(wire: error)
        }
    }

    @Test("InterruptionReason keeps AVFoundation raw values", arguments: InterruptionReason.allCases)
    func interruptionRawValues(_ reason: InterruptionReason) throws {
        #expect(Camsync_V1_InterruptionReason(reason).rawValue == reason.rawValue)
        #expect(try InterruptionReason(wire: Camsync_V1_InterruptionReason(reason)) == reason)
    }

    @Test("SystemPressureLevel keeps its order", arguments: SystemPressureLevel.allCases)
    func pressureLevels(_ level: SystemPressureLevel) throws {
        #expect(Camsync_V1_SystemPressureLevel(level).rawValue == level.rawValue)
        #expect(try SystemPressureLevel(wire: Camsync_V1_SystemPressureLevel(level)) == level)
    }

    @Test("every Scene case round-trips", arguments: [
        Scene.notRunning, .fullScreen, .splitPrimary, .splitSecondary, .slideOver, .stageWindow(Samples.stage),
        .background, .terminated,
    ])
    func scenes(_ scene: Scene) throws {
        #expect(try Scene(wire: throughBytes(Camsync_V1_Scene(scene))) == scene)
    }

    @Test("every SessionState and PiPWindowState case round-trips")
    func statesRoundTrip() throws {
        for state in [SessionState.running, .stopped] + InterruptionReason.allCases.map(SessionState.interrupted) {
            #expect(try SessionState(wire: throughBytes(Camsync_V1_SessionState(state))) == state)
        }
        for window in [PiPWindowState.inactive, .suspended,
                       .active(screen: Samples.ipad, frame: Samples.frame, stashed: false),
                       .active(screen: Samples.display, frame: Samples.frame, stashed: true)] {
            #expect(try PiPWindowState(wire: throughBytes(Camsync_V1_PipWindowState(window))) == window)
        }
    }

    @Test("FenceRecord round-trips through the node status's FenceRecord")
    func fenceRecords() throws {
        let app = Samples.facetime
        for kind: FenceDecision.Kind in [.allowed, .released, .refusedStale(highest: GrantToken(5))] {
            for system: CameraSystemID in [.builtIn(device: Samples.ipad), .external(CameraID(host: Samples.display, name: "cam"))] {
                let record = FenceRecord(node: Samples.ipad, decision: FenceDecision(kind, system: system, app: app, token: GrantToken(4),
                                                                                     fromSnapshot: kind == .released),
                                         sequence: 1_000, at: Instant(milliseconds: 1_700_000_000_000))
                let wire = try throughBytes(Camsync_V1_FenceRecord(record))
                #expect(try FenceRecord(wire: wire, node: Samples.ipad) == record)
            }
        }
        var wire = Camsync_V1_FenceRecord(FenceRecord(
            node: Samples.ipad, decision: FenceDecision(.allowed, system: .builtIn(device: Samples.ipad), app: app, token: GrantToken(1)),
            sequence: 1, at: .zero))
        wire.decision = .unspecified
        #expect(throws: WireMappingError("decision", .unspecified)) { try FenceRecord(wire: wire, node: Samples.ipad) }
        wire.decision = .allowed
        wire.clearApp()
        #expect(throws: WireMappingError("app", .missing)) { try FenceRecord(wire: wire, node: Samples.ipad) }
    }
}
