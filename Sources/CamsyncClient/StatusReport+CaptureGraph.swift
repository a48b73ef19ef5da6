public import CamsyncPolicy

/// How `ctl status` spells a session's capture graph (C11–C14): its cameras and its outputs.
extension StatusReport {
    /// The session's cameras, MultiCam ones after the first: `ipad-1/lidar+telephoto+ultra-wide`
    /// (the host once when they share it).
    public static func cameras(of configuration: SessionConfiguration) -> String {
        let cameras = configuration.cameras
        guard cameras.count > 1 else { return configuration.camera.description }
        if cameras.allSatisfy({ $0.host == configuration.camera.host }) {
            return "\(configuration.camera.host)/" + cameras.map(\.name).joined(separator: "+")
        }
        return cameras.map(\.description).joined(separator: "+")
    }

    /// The session's outputs in order, each video data output with the resolution it delivers:
    /// `video:uhd4K,video:hd720,movieFile,audioData`.
    public static func outputs(of configuration: SessionConfiguration) -> String {
        var resolutions = configuration.videoDataOutputResolutions.makeIterator()
        return configuration.outputs.map { output in
            guard output == .videoData, let resolution = resolutions.next() else { return output.rawValue }
            return "video:\(resolution.rawValue)"
        }.joined(separator: ",")
    }

    /// C3, C13: the multitaskingCameraAccess column; an ARKit session never has it.
    static func multitaskingAccess(of session: CaptureSessionRecord) -> String {
        if session.configuration.runByARKit { return "never (ARKit)" }
        guard session.configuration.multitaskingCameraAccessEnabled else { return "off" }
        return session.multitaskingCameraAccessSupported ? "enabled" : "enabled, unsupported"
    }
}
