public import CamsyncPolicy

extension Camsync_V1_PolicySettings {
    public init(_ settings: PolicySettings) {
        self.init()
        stageWindowLimitPerScreen = Int64(settings.stageWindowLimitPerScreen)
        backgroundMediaMemoryLimitMb = Int64(settings.backgroundMediaMemoryLimitMB)
        seriousPressureMaxFrameRate = Int64(settings.seriousPressureMaxFrameRate)
        criticalPressureMaxFrameRate = Int64(settings.criticalPressureMaxFrameRate)
        pipRestoreDeadlineMs = settings.pipRestoreDeadlineMilliseconds
        maxHardwareCost = settings.maxHardwareCost
    }
}

extension PolicySettings {
    /// Settings from the wire; every limit must be positive.
    public init(wire: Camsync_V1_PolicySettings) throws(WireMappingError) {
        func positive(_ value: Int64, _ field: String) throws(WireMappingError) -> Int {
            guard value > 0, value <= Int64(Int32.max) else { throw WireMappingError(field, .inconsistent("must be > 0")) }
            return Int(value)
        }
        guard wire.maxHardwareCost > 0 else { throw WireMappingError("max_hardware_cost", .inconsistent("must be > 0")) }
        guard wire.pipRestoreDeadlineMs > 0 else { throw WireMappingError("pip_restore_deadline_ms", .inconsistent("must be > 0")) }
        self.init(
            stageWindowLimitPerScreen: try positive(wire.stageWindowLimitPerScreen, "stage_window_limit_per_screen"),
            backgroundMediaMemoryLimitMB: try positive(wire.backgroundMediaMemoryLimitMb, "background_media_memory_limit_mb"),
            seriousPressureMaxFrameRate: try positive(wire.seriousPressureMaxFrameRate, "serious_pressure_max_frame_rate"),
            criticalPressureMaxFrameRate: try positive(wire.criticalPressureMaxFrameRate, "critical_pressure_max_frame_rate"),
            pipRestoreDeadlineMilliseconds: wire.pipRestoreDeadlineMs, maxHardwareCost: wire.maxHardwareCost)
    }
}

extension Camsync_V1_Snapshot {
    /// The engine settings the snapshot's state was computed with; must be present.
    public func domainSettings() throws(WireMappingError) -> PolicySettings {
        guard hasSettings else { throw WireMappingError("settings", .missing) }
        return try within("settings") { () throws(WireMappingError) in try PolicySettings(wire: settings) }
    }
}
