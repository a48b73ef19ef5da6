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
/// | each camera of a MultiCam session (C14) | base × frameRate / 30 again: the sum over its cameras |
/// | ProRAW | + 0.300 |
/// | Deep Fusion | + 0.150 |
/// | depth data output | + 0.100 |
/// | each output beyond the first, every one counted (C12) | + 0.020 |
/// | each video data output beyond the first (C11) | + a quarter of its own resolution's base × frameRate / 30 |
///
/// So 1080p30 costs 0.4, 1080p60 0.8, 4K30 0.7, 4K30 + ProRAW exactly 1.0 (allowed), 4K60 1.4
/// (refused); 4K30 with a 4K and a 720p video data output and a movie file output 0.802; a
/// MultiCam session of two cameras at 1080p30 0.8, of three 1.2 (refused). An explicit
/// `SessionConfiguration.hardwareCost` overrides the model.
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
        let frameRate = max(configuration.frameRate, 0)
        let stream = baseMilli(configuration.resolution) * frameRate / 30
        // C14: the sum over the session's cameras.
        var milli = stream * configuration.cameras.count
        if configuration.proRAW { milli += 300 }
        if configuration.deepFusion { milli += 150 }
        if configuration.outputs.contains(.depthData) { milli += 100 }
        // C12: every output counts.
        milli += 20 * max(configuration.outputs.count - 1, 0)
        // C11: every further video data output scales its own stream.
        for resolution in configuration.videoDataOutputResolutions.dropFirst() {
            milli += baseMilli(resolution) * frameRate / 30 / 4
        }
        return milli
    }

    /// The cost of a configuration: its explicit `hardwareCost`, else the model.
    public static func cost(of configuration: SessionConfiguration) -> Double {
        if let explicit = configuration.hardwareCost { return explicit }
        return Double(costMilli(of: configuration)) / 1000
    }
}
