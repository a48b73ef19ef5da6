/// C9: the hardware cost of a session configuration (seed 002: "query the session's
/// hardwareCost property"; a cost above 1.0 cannot run).
///
/// The model, computed in integer thousandths so that it is exact and the same on every
/// platform:
///
/// | component | cost |
/// |---|---|
/// | base by resolution | vga 0.150, hd720 0.250, hd1080 0.400, uhd4K 0.700 |
/// | frame rate | base × frameRate / 30 (rounded down to a thousandth) |
/// | ProRAW | + 0.300 |
/// | Deep Fusion | + 0.150 |
/// | depth data output | + 0.100 |
/// | each output beyond the first | + 0.020 |
///
/// So 1080p30 costs 0.4, 1080p60 0.8, 4K30 0.7, 4K30 + ProRAW exactly 1.0 (allowed), 4K60 1.4
/// (refused). An explicit `SessionConfiguration.hardwareCost` overrides the model.
public enum HardwareCostModel {
    public static func baseMilli(_ resolution: CaptureResolution) -> Int {
        switch resolution {
        case .vga: 150
        case .hd720: 250
        case .hd1080: 400
        case .uhd4K: 700
        }
    }

    /// The modelled cost in thousandths.
    public static func costMilli(of configuration: SessionConfiguration) -> Int {
        var milli = baseMilli(configuration.resolution) * max(configuration.frameRate, 0) / 30
        if configuration.proRAW { milli += 300 }
        if configuration.deepFusion { milli += 150 }
        if configuration.outputs.contains(.depthData) { milli += 100 }
        milli += 20 * max(Set(configuration.outputs).count - 1, 0)
        return milli
    }

    /// The cost of a configuration: its explicit `hardwareCost`, else the model.
    public static func cost(of configuration: SessionConfiguration) -> Double {
        if let explicit = configuration.hardwareCost { return explicit }
        return Double(costMilli(of: configuration)) / 1000
    }
}
