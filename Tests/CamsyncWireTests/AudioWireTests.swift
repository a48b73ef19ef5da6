import CamsyncPolicy
import CamsyncWire
import SwiftProtobuf
import Testing

/// Audio sessions on the wire (SPEC §8): compatible additions to v1, and bad audio messages
/// named by field.
@Suite struct AudioWireTests {
    static let app = Camsync_V1_AppRef(Samples.tv)

    /// A peer that predates audio sends AppRecords without `audio_session`: the app has its
    /// declared category, inactive.
    @Test func appRecordWithoutAudioSessionHasTheDeclaredCategory() throws {
        var wire = Camsync_V1_AppRecord(AppRecord(id: Samples.tv, spec: Samples.tvSpec, memoryFootprintMB: 10))
        wire.clearAudioSession()
        let record = try AppRecord(wire: Camsync_V1_AppRecord(serializedBytes: try wire.serializedBytes() as [UInt8]))
        #expect(record.audioSession == AudioSessionRecord(declared: Samples.tvSpec.audioSessionCategory))
    }

    @Test func capturesAudioInputAndKeepsItOffWhenAbsent() throws {
        var wire = Camsync_V1_SessionConfiguration(SessionConfiguration(camera: Samples.front, audioInput: true))
        #expect(try SessionConfiguration(wire: wire).audioInput)
        wire.audioInput = false
        #expect(try SessionConfiguration(wire: wire).audioInput == false)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var name: String
        var command: Camsync_V1_Command?
        var event: Camsync_V1_Event?
        var expected: WireMappingError
        var testDescription: String { name }
    }

    @Test(arguments: [
        Bad(name: "set_audio_category without a configuration",
            command: .with { $0.setAudioCategory = .with { $0.app = AudioWireTests.app } }, event: nil,
            expected: .init("set_audio_category.configuration", .missing)),
        Bad(name: "set_audio_category with an UNSPECIFIED category",
            command: .with { $0.setAudioCategory = .with { $0.app = AudioWireTests.app; $0.configuration = .with { $0.mixWithOthers = true } } }, event: nil,
            expected: .init("set_audio_category.configuration.category", .unspecified)),
        Bad(name: "activate_audio_session without an app", command: .with { $0.activateAudioSession = .init() }, event: nil,
            expected: .init("activate_audio_session.app", .missing)),
        Bad(name: "audio_interruption_began with an unknown reason",
            command: nil, event: .with { $0.audioInterruptionBegan = .with { $0.app = AudioWireTests.app; $0.reason = .UNRECOGNIZED(9) } },
            expected: .init("audio_interruption_began.reason", .unrecognized(9))),
    ])
    func badAudioMessagesNameTheField(_ c: Bad) {
        if let command = c.command { #expect(throws: c.expected) { try Command(wire: command) } }
        if let event = c.event { #expect(throws: c.expected) { try Event(wire: event) } }
    }
}
