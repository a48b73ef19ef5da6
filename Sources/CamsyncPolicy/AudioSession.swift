/// An app's AVAudioSession category and the options the engine arbitrates with (A1):
/// what `setCategory(_:options:)` sets.
public struct AudioSessionConfiguration: Hashable, Codable, Sendable {
    public var category: AudioSessionCategory
    /// `AVAudioSession.CategoryOptions.mixWithOthers`.
    public var mixWithOthers: Bool
    /// `AVAudioSession.CategoryOptions.duckOthers`; implies `mixWithOthers`, as AVAudioSession sets it implicitly.
    public var duckOthers: Bool

    public init(category: AudioSessionCategory, mixWithOthers: Bool = false, duckOthers: Bool = false) {
        self.category = category
        self.mixWithOthers = mixWithOthers
        self.duckOthers = duckOthers
    }

    /// A1: `ambient`, or `mixWithOthers` (which `duckOthers` implies). Otherwise non-mixable.
    public var isMixable: Bool { category == .ambient || mixWithOthers || duckOthers }

    /// A7: `record` and `playAndRecord` use the microphone.
    public var usesMicrophone: Bool { category == .record || category == .playAndRecord }

    /// A8: the categories that may keep playing in background (with the background mode).
    public var allowsBackgroundAudio: Bool { category == .playback || category == .playAndRecord }

    /// A1: why AVAudioSession would refuse this category / option pair, or nil when it is possible.
    /// `mixWithOthers` and `duckOthers` may be set only with `playback` and `playAndRecord`
    /// (`ambient` mixes by itself; `soloAmbient` and `record` never mix).
    public var incompatibility: String? {
        guard mixWithOthers || duckOthers, !allowsBackgroundAudio else { return nil }
        let option = duckOthers ? "duckOthers" : "mixWithOthers"
        return "\(option) cannot be set with category \(category.rawValue): only playback and playAndRecord take options"
    }

    /// The configuration as AVAudioSession keeps it: `duckOthers` sets `mixWithOthers` too.
    public var normalized: AudioSessionConfiguration {
        var copy = self
        if duckOthers { copy.mixWithOthers = true }
        return copy
    }
}

/// AVAudioSession.InterruptionReason for an interruption that began (A3, A8).
public enum AudioInterruptionReason: String, Hashable, Codable, Sendable, CaseIterable {
    /// A3: another app activated a non-mixable session.
    case `default`
    /// A8: the app left the screen without being allowed to play in background.
    case appWasSuspended
}

/// An app's audio session (A1–A8). Every installed app has one; it starts inactive with the
/// category the app declares (`AppSpec.audioSessionCategory`) and returns to that when the app
/// terminates.
public struct AudioSessionRecord: Hashable, Codable, Sendable {
    public var configuration: AudioSessionConfiguration
    public var isActive: Bool
    /// A3, A6: the app whose activation interrupted this session, until that app's session stops
    /// being active and non-mixable (then `audioInterruptionEnded(shouldResume: true)`).
    public var interruptedBy: AppID?
    /// A4: lowered in volume by another app's active `duckOthers` session.
    public var isDucked: Bool
    /// A5: `secondaryAudioShouldBeSilencedHint` as the app reads it.
    public var secondaryAudioShouldBeSilencedHint: Bool

    public init(configuration: AudioSessionConfiguration, isActive: Bool = false, interruptedBy: AppID? = nil,
                isDucked: Bool = false, secondaryAudioShouldBeSilencedHint: Bool = false) {
        self.configuration = configuration
        self.isActive = isActive
        self.interruptedBy = interruptedBy
        self.isDucked = isDucked
        self.secondaryAudioShouldBeSilencedHint = secondaryAudioShouldBeSilencedHint
    }

    /// The session a freshly launched app has: its declared category, no options, inactive.
    public init(declared category: AudioSessionCategory) {
        self.init(configuration: AudioSessionConfiguration(category: category))
    }
}
