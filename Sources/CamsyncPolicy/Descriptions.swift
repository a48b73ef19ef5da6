/// Short, readable descriptions for logs and `camsync ctl watch` (the enum's own words, no module prefix).
extension NodeKind: CustomStringConvertible { public var description: String { rawValue } }
extension LayoutDirection: CustomStringConvertible { public var description: String { rawValue } }
extension CameraPosition: CustomStringConvertible { public var description: String { rawValue } }
extension AudioSessionCategory: CustomStringConvertible { public var description: String { rawValue } }
extension Role: CustomStringConvertible { public var description: String { rawValue } }
extension SplitSide: CustomStringConvertible { public var description: String { rawValue } }
extension BackgroundCause: CustomStringConvertible { public var description: String { rawValue } }
extension OpenTrigger: CustomStringConvertible { public var description: String { rawValue } }
extension CaptureResolution: CustomStringConvertible { public var description: String { rawValue } }
extension CaptureOutput: CustomStringConvertible { public var description: String { rawValue } }
extension RecordingOutput: CustomStringConvertible { public var description: String { rawValue } }
extension PiPKind: CustomStringConvertible { public var description: String { rawValue } }
extension PiPStartTrigger: CustomStringConvertible { public var description: String { rawValue } }
extension PiPFailureReason: CustomStringConvertible { public var description: String { rawValue } }
extension NodeLeaveReason: CustomStringConvertible { public var description: String { rawValue } }
extension TerminationReason: CustomStringConvertible { public var description: String { rawValue } }
extension WarningKind: CustomStringConvertible { public var description: String { rawValue } }
extension AudioInterruptionReason: CustomStringConvertible { public var description: String { rawValue } }

extension AudioSessionConfiguration: CustomStringConvertible {
    /// `playback`, `playback+mixWithOthers+duckOthers`.
    public var description: String {
        var parts = [category.rawValue]
        if mixWithOthers { parts.append("mixWithOthers") }
        if duckOthers { parts.append("duckOthers") }
        return parts.joined(separator: "+")
    }
}

extension SystemPressureLevel: CustomStringConvertible {
    public var description: String {
        switch self {
        case .nominal: "nominal"
        case .fair: "fair"
        case .serious: "serious"
        case .critical: "critical"
        case .shutdown: "shutdown"
        }
    }
}

extension Scene: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notRunning: "notRunning"
        case .fullScreen: "fullScreen"
        case .splitPrimary: "splitPrimary"
        case .splitSecondary: "splitSecondary"
        case .slideOver: "slideOver"
        case .stageWindow(let window): "stageWindow(\(window.screen) \(window.frame))"
        case .background: "background"
        case .terminated: "terminated"
        }
    }
}

extension SessionState: CustomStringConvertible {
    public var description: String {
        switch self {
        case .running: "running"
        case .stopped: "stopped"
        case .interrupted(let reason): "interrupted(\(reason) \(reason.rawValue))"
        }
    }
}

extension SessionConfiguration: CustomStringConvertible {
    public var description: String {
        var parts = ["camera: \(camera)", "\(resolution)@\(frameRate)", "outputs: \(outputs.map(\.rawValue).joined(separator: ","))"]
        if multitaskingCameraAccessEnabled { parts.append("multitasking access") }
        if proRAW { parts.append("ProRAW") }
        if deepFusion { parts.append("Deep Fusion") }
        if let hardwareCost { parts.append("cost \(hardwareCost)") }
        if audioInput { parts.append("audio input") }
        if !videoDataResolutions.isEmpty { parts.append("video data: \(videoDataResolutions.map(\.rawValue).joined(separator: ","))") }
        if runByARKit { parts.append("ARKit") }
        if !additionalCameras.isEmpty { parts.append("MultiCam with \(additionalCameras.map(\.description).joined(separator: ","))") }
        return parts.joined(separator: ", ")
    }
}
