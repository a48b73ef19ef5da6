/// Capture graphs (seed 002; SPEC C11–C14): what one session configuration may combine on its
/// device. The one definition the engine's validation (`validateConfiguration`) and the invariant
/// checker share.
extension ClusterState {
    /// The camera as its host declared it, if known.
    public func cameraSpec(of camera: CameraID) -> CameraSpec? {
        guard let registration = nodes[camera.host]?.registration else { return nil }
        let cameras: [CameraSpec]
        switch registration.attributes {
        case .device(let device): cameras = device.cameras
        case .display(let display): cameras = display.cameras
        }
        return cameras.first { $0.name == camera.name }
    }

    /// Why `configuration` cannot be a session's on `device` under C11–C14, or nil when it can.
    /// The cameras themselves (known, usable: C10) are checked by the caller.
    public func captureGraphRejection(of configuration: SessionConfiguration, device: NodeID) -> Rejection? {
        let os = deviceAttributes(device)?.osMajor ?? 0
        let outputs = configuration.outputs
        let videoDataOutputs = outputs.filter { $0 == .videoData }.count
        // C11: each video data output has its own resolution, at most the camera format's.
        let resolutions = configuration.videoDataResolutions
        if !resolutions.isEmpty && resolutions.count != videoDataOutputs {
            return Rejection(.invalidArgument,
                             "\(resolutions.count) video data resolutions for \(videoDataOutputs) video data outputs (C11)")
        }
        if let tooLarge = resolutions.first(where: { HardwareCostModel.baseMilli($0) > HardwareCostModel.baseMilli(configuration.resolution) }) {
            return Rejection(.invalidArgument,
                             "a video data output cannot deliver \(tooLarge.rawValue) from a \(configuration.resolution.rawValue) camera format (C11)")
        }
        if videoDataOutputs > 1 && os < 16 {
            return Rejection(.captureGraphUnsupported,
                             "\(videoDataOutputs) video data outputs in one session need iPadOS 16; \(device) runs \(os) (C11)")
        }
        // C12
        if outputs.contains(.audioData) && !configuration.audioInput {
            return Rejection(.invalidArgument, "an audio data output needs the microphone as an input (audio input) (C12)")
        }
        if outputs.contains(.movieFile) && (outputs.contains(.videoData) || outputs.contains(.audioData)) && os < 16 {
            return Rejection(.captureGraphUnsupported,
                             "a movie file output with video or audio data outputs needs iPadOS 16; \(device) runs \(os) (C12)")
        }
        // C13
        if configuration.runByARKit && configuration.multitaskingCameraAccessEnabled {
            return Rejection(.multitaskingCameraAccessUnsupported,
                             "a session run by ARKit never has multitasking camera access: ARKit does not support using the camera while multitasking (C13)")
        }
        // C14
        if !configuration.additionalCameras.isEmpty {
            return multiCamRejection(of: configuration, device: device)
        }
        return nil
    }

    /// C14: a MultiCam session on a model that supports it, over distinct cameras of the device's
    /// own camera system, never the LiDAR Depth Camera with the back wide-angle camera under it.
    private func multiCamRejection(of configuration: SessionConfiguration, device: NodeID) -> Rejection? {
        guard let attributes = deviceAttributes(device), attributes.isMultiCamSupported else {
            let model = deviceAttributes(device)?.model ?? "unknown"
            return Rejection(.multiCamUnsupported, "\(device) (\(model)) does not support MultiCam sessions (C14)")
        }
        let cameras = configuration.cameras
        guard Set(cameras).count == cameras.count else {
            return Rejection(.invalidArgument, "a MultiCam session names a camera twice (C14)")
        }
        let system = CameraSystemID.builtIn(device: device)
        if let foreign = cameras.first(where: { cameraSystem(of: $0) != system }) {
            return Rejection(.multiCamUnsupported,
                             "MultiCam uses cameras of \(device)'s own camera system; \(foreign) is not one (C14)")
        }
        let positions = Set(cameras.compactMap { cameraSpec(of: $0)?.position })
        if positions.contains(.lidarDepth) && positions.contains(.back) {
            return Rejection(.multiCamUnsupported,
                             "the LiDAR Depth Camera is a virtual camera over the back wide-angle camera: one session cannot use both (C14)")
        }
        return nil
    }

    /// C13 with C3: `isMultitaskingCameraAccessSupported` for a configuration — never for a session
    /// run by ARKit.
    public func multitaskingCameraAccessSupported(app id: AppID, configuration: SessionConfiguration) -> Bool {
        !configuration.runByARKit && multitaskingCameraAccessSupported(app: id)
    }
}

extension SessionConfiguration {
    /// Every camera the session uses: `camera` first, then the MultiCam ones (C14).
    public var cameras: [CameraID] { [camera] + additionalCameras }

    /// C11: each video data output's resolution, in order.
    public var videoDataOutputResolutions: [CaptureResolution] {
        let count = outputs.filter { $0 == .videoData }.count
        return videoDataResolutions.count == count ? videoDataResolutions : Array(repeating: resolution, count: count)
    }
}
