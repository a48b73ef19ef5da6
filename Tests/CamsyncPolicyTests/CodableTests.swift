import Foundation
import Testing
@testable import CamsyncPolicy

/// The engine's value types are `Codable` (synthesized): commands, events, states and settings
/// survive a JSON round trip unchanged (the soak history is made of them).
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

    @Test func settingsRoundTrip() throws {
        try Self.roundTrip(PolicySettings(stageWindowLimitPerScreen: 3, maxHardwareCost: 0.8))
    }

    @Test func nodeIDEncodesAsItsRawString() throws {
        #expect(String(decoding: try JSONEncoder().encode(NodeID("ipad-1")), as: UTF8.self) == #""ipad-1""#)
        #expect(String(decoding: try JSONEncoder().encode(SystemPressureLevel.serious), as: UTF8.self) == "3")
    }
}
