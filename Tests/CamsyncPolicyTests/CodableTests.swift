import Foundation
import Testing
@testable import CamsyncPolicy

/// The engine's value types are `Codable` (synthesized): commands, events, states, settings and
/// fence records survive a JSON round trip unchanged (the soak history is made of them).
@Suite struct CodableTests {
    static func roundTrip<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(T.self, from: data) == value, sourceLocation: sourceLocation)
    }

    @Test(arguments: [UInt64(1), 0xC0FFEE])
    func randomCommandsEventsAndStatesRoundTrip(_ seed: UInt64) throws {
        var generator = CommandGenerator(seed: seed)
        var engine = PolicyEngine()
        var now = Instant.zero
        var commands: [Command] = []
        var events: [Event] = []
        var rejections: [Rejection] = []
        for node in generator.devices + generator.displays {
            let command = Command.registerNode(generator.registration(node))
            commands.append(command)
            if case .success(let produced) = engine.apply(command, at: now) { events += produced }
        }
        for _ in 0..<1_500 {
            now = now.adding(milliseconds: Int64(generator.rng.next() % 700))
            let command = generator.next()
            commands.append(command)
            switch engine.apply(command, at: now) {
            case .success(let produced): events += produced
            case .failure(let rejection): rejections.append(rejection)
            }
        }
        #expect(Set(commands.map { "\($0)".prefix { $0 != "(" } }).count > 30, "the run covers most commands")
        #expect(Set(events.map { "\($0)".prefix { $0 != "(" } }).count >= 20, "the run covers most events")
        try Self.roundTrip(commands)
        try Self.roundTrip(events)
        try Self.roundTrip(rejections)
        try Self.roundTrip(engine.state)
        #expect(engine.state.apps.values.contains { $0.session != nil && $0.pip != nil })
    }

    @Test func settingsAndFenceRecordsRoundTrip() throws {
        try Self.roundTrip(PolicySettings(stageWindowLimitPerScreen: 3, maxHardwareCost: 0.8))
        let app = AppID(device: "ipad-1", bundleID: "com.example.call")
        for kind: FenceDecision.Kind in [.allowed, .released, .refusedStale(highest: GrantToken(9))] {
            for system: CameraSystemID in [.builtIn(device: "ipad-1"), .external(CameraID(host: "display-1", name: "cam"))] {
                try Self.roundTrip(FenceRecord(node: "ipad-1", decision: FenceDecision(kind, system: system, app: app, token: GrantToken(4),
                                                                                      fromSnapshot: kind == .released),
                                               sequence: 42, at: Instant(milliseconds: 1_700_000_000_000)))
            }
        }
    }

    @Test func nodeIDEncodesAsItsRawString() throws {
        #expect(String(decoding: try JSONEncoder().encode(NodeID("ipad-1")), as: UTF8.self) == #""ipad-1""#)
        #expect(String(decoding: try JSONEncoder().encode(SystemPressureLevel.serious), as: UTF8.self) == "3")
    }

    @Test func fenceRecordDescriptionIsTheNodeLogLine() {
        let app = AppID(device: "ipad-1", bundleID: "com.example.call")
        let system = CameraSystemID.builtIn(device: "ipad-1")
        func line(_ kind: FenceDecision.Kind, snapshot: Bool = false) -> String {
            FenceRecord(node: "ipad-1", decision: FenceDecision(kind, system: system, app: app, token: GrantToken(3), fromSnapshot: snapshot),
                        sequence: 42, at: .zero).description
        }
        #expect(line(.allowed) == "fence allow system=ipad-1/builtin app=ipad-1/com.example.call token=3 seq=42")
        #expect(line(.released, snapshot: true)
                == "fence release system=ipad-1/builtin app=ipad-1/com.example.call token=3 seq=42 source=snapshot")
        #expect(line(.refusedStale(highest: GrantToken(5)))
                == "fence refuse system=ipad-1/builtin app=ipad-1/com.example.call token=3 highest=5 seq=42")
    }
}
