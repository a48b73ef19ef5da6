import CamsyncPolicy

/// A session's capture graph as the web view shows it on the app's window (C11–C14).
struct CaptureGraphView: Codable, Equatable, Sendable {
    /// Camera names, the session's camera first (several for a MultiCam session, C14).
    var cameras: [String]
    /// Outputs in order, a video data output with its resolution: `video:uhd4K` (C11, C12).
    var outputs: [String]
    /// C13: run by ARKit.
    var arKit: Bool

    init(_ configuration: SessionConfiguration) {
        cameras = configuration.cameras.map { $0.host == configuration.camera.host ? $0.name : $0.description }
        var resolutions = configuration.videoDataOutputResolutions.makeIterator()
        outputs = configuration.outputs.map { output in
            guard output == .videoData, let resolution = resolutions.next() else { return output.rawValue }
            return "video:\(resolution.rawValue)"
        }
        arKit = configuration.runByARKit
    }
}
