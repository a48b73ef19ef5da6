/// Values SPEC leaves to the project ([policy]). Part of the engine's input:
/// the same settings and commands always give the same state.
public struct PolicySettings: Hashable, Codable, Sendable {
    /// L3: Stage Manager windows per screen.
    public var stageWindowLimitPerScreen: Int
    /// P9: memory limit of a backgroundMedia app, in megabytes.
    public var backgroundMediaMemoryLimitMB: Int
    /// S2: suggested maximum frame rate at `serious`.
    public var seriousPressureMaxFrameRate: Int
    /// S2: suggested maximum frame rate at `critical`.
    public var criticalPressureMaxFrameRate: Int
    /// P6: how long an app has to complete a PiP restore, in milliseconds.
    public var pipRestoreDeadlineMilliseconds: Int64
    /// C9: the highest hardware cost a session configuration may have.
    public var maxHardwareCost: Double

    public init(
        stageWindowLimitPerScreen: Int = 4, backgroundMediaMemoryLimitMB: Int = 200,
        seriousPressureMaxFrameRate: Int = 30, criticalPressureMaxFrameRate: Int = 15,
        pipRestoreDeadlineMilliseconds: Int64 = 2_000, maxHardwareCost: Double = 1.0
    ) {
        self.stageWindowLimitPerScreen = stageWindowLimitPerScreen
        self.backgroundMediaMemoryLimitMB = backgroundMediaMemoryLimitMB
        self.seriousPressureMaxFrameRate = seriousPressureMaxFrameRate
        self.criticalPressureMaxFrameRate = criticalPressureMaxFrameRate
        self.pipRestoreDeadlineMilliseconds = pipRestoreDeadlineMilliseconds
        self.maxHardwareCost = maxHardwareCost
    }
}
