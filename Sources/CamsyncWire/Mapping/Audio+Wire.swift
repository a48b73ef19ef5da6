public import CamsyncPolicy

// Audio sessions (SPEC §8, A1–A8). The commands' and events' oneof cases are mapped with the
// others in Command+Wire.swift and Event+Wire.swift; their messages are here.

// MARK: - AudioSessionConfiguration

extension Camsync_V1_AudioSessionConfiguration {
    public init(_ configuration: AudioSessionConfiguration) {
        self.init()
        category = Camsync_V1_AudioSessionCategory(configuration.category)
        mixWithOthers = configuration.mixWithOthers
        duckOthers = configuration.duckOthers
    }
}

extension AudioSessionConfiguration {
    /// `category` specified. Impossible category / option pairs are the engine's to refuse (A1).
    public init(wire: Camsync_V1_AudioSessionConfiguration) throws(WireMappingError) {
        self.init(category: try AudioSessionCategory(wire: wire.category, field: "category"),
                  mixWithOthers: wire.mixWithOthers, duckOthers: wire.duckOthers)
    }
}

/// A required `AudioSessionConfiguration` message field.
func requireAudioConfiguration(_ has: Bool, _ value: Camsync_V1_AudioSessionConfiguration,
                               _ field: String) throws(WireMappingError) -> AudioSessionConfiguration {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try AudioSessionConfiguration(wire: value) }
}

// MARK: - AudioInterruptionReason

extension Camsync_V1_AudioInterruptionReason {
    public init(_ value: AudioInterruptionReason) {
        switch value {
        case .default: self = .default
        case .appWasSuspended: self = .appWasSuspended
        }
    }
}

extension AudioInterruptionReason {
    public init(wire: Camsync_V1_AudioInterruptionReason, field: String = "reason") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .default: .default
            case .appWasSuspended: .appWasSuspended
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

// MARK: - AudioSessionRecord

extension Camsync_V1_AudioSessionRecord {
    public init(_ record: AudioSessionRecord) {
        self.init()
        configuration = Camsync_V1_AudioSessionConfiguration(record.configuration)
        active = record.isActive
        if let app = record.interruptedBy { interruptedBy = Camsync_V1_AppRef(app) }
        ducked = record.isDucked
        secondaryAudioShouldBeSilencedHint = record.secondaryAudioShouldBeSilencedHint
    }
}

extension AudioSessionRecord {
    /// `configuration` present and valid; `interrupted_by` valid when present.
    public init(wire: Camsync_V1_AudioSessionRecord) throws(WireMappingError) {
        self.init(
            configuration: try requireAudioConfiguration(wire.hasConfiguration, wire.configuration, "configuration"),
            isActive: wire.active,
            interruptedBy: wire.hasInterruptedBy ? try requireAppID(true, wire.interruptedBy, "interrupted_by") : nil,
            isDucked: wire.ducked,
            secondaryAudioShouldBeSilencedHint: wire.secondaryAudioShouldBeSilencedHint
        )
    }
}
