public import CamsyncPolicy

// MARK: - InterruptionReason (AVFoundation raw values, SPEC §3 table)

extension Camsync_V1_InterruptionReason {
    /// The wire numbers are AVFoundation's raw values, so this is the identity on numbers.
    public init(_ reason: InterruptionReason) {
        self = Camsync_V1_InterruptionReason(rawValue: reason.rawValue) ?? .UNRECOGNIZED(reason.rawValue)
    }
}

extension InterruptionReason {
    public init(wire: Camsync_V1_InterruptionReason, field: String = "reason") throws(WireMappingError) {
        self = try decodeEnum(wire, field) { $0 == .unspecified ? nil : InterruptionReason(rawValue: $0.rawValue) }
    }
}

// MARK: - Other capture enums

extension Camsync_V1_CaptureResolution {
    public init(_ value: CaptureResolution) {
        switch value {
        case .vga: self = .vga
        case .hd720: self = .hd720
        case .hd1080: self = .hd1080
        case .uhd4K: self = .uhd4K
        }
    }
}

extension CaptureResolution {
    public init(wire: Camsync_V1_CaptureResolution, field: String = "resolution") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .vga: .vga
            case .hd720: .hd720
            case .hd1080: .hd1080
            case .uhd4K: .uhd4K
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_CaptureOutput {
    public init(_ value: CaptureOutput) {
        switch value {
        case .videoData: self = .videoData
        case .photo: self = .photo
        case .movieFile: self = .movieFile
        case .assetWriter: self = .assetWriter
        case .depthData: self = .depthData
        case .metadata: self = .metadata
        case .audioData: self = .audioData
        }
    }
}

extension CaptureOutput {
    public init(wire: Camsync_V1_CaptureOutput, field: String = "output") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .videoData: .videoData
            case .photo: .photo
            case .movieFile: .movieFile
            case .assetWriter: .assetWriter
            case .depthData: .depthData
            case .metadata: .metadata
            case .audioData: .audioData
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_RecordingOutput {
    public init(_ value: RecordingOutput) {
        switch value {
        case .movieFile: self = .movieFile
        case .assetWriter: self = .assetWriter
        }
    }
}

extension RecordingOutput {
    public init(wire: Camsync_V1_RecordingOutput, field: String = "output") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .movieFile: .movieFile
            case .assetWriter: .assetWriter
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_SystemPressureLevel {
    /// Wire numbers equal the domain's raw values (1 nominal … 5 shutdown).
    public init(_ level: SystemPressureLevel) {
        self = Camsync_V1_SystemPressureLevel(rawValue: level.rawValue) ?? .UNRECOGNIZED(level.rawValue)
    }
}

extension SystemPressureLevel {
    public init(wire: Camsync_V1_SystemPressureLevel, field: String = "level") throws(WireMappingError) {
        self = try decodeEnum(wire, field) { $0 == .unspecified ? nil : SystemPressureLevel(rawValue: $0.rawValue) }
    }
}

// MARK: - SessionConfiguration

extension Camsync_V1_SessionConfiguration {
    public init(_ configuration: SessionConfiguration) {
        self.init()
        camera = Camsync_V1_CameraRef(configuration.camera)
        multitaskingCameraAccessEnabled = configuration.multitaskingCameraAccessEnabled
        outputs = configuration.outputs.map(Camsync_V1_CaptureOutput.init)
        resolution = Camsync_V1_CaptureResolution(configuration.resolution)
        proRaw = configuration.proRAW
        deepFusion = configuration.deepFusion
        frameRate = Int64(configuration.frameRate)
        if let cost = configuration.hardwareCost { hardwareCost = cost }
        audioInput = configuration.audioInput
        videoDataResolutions = configuration.videoDataResolutions.map(Camsync_V1_CaptureResolution.init)
        runByArkit = configuration.runByARKit
        additionalCameras = configuration.additionalCameras.map(Camsync_V1_CameraRef.init)
    }
}

extension SessionConfiguration {
    /// `camera` present and valid, every output and resolution specified, every additional camera
    /// valid. (How many video data resolutions there are is the engine's check, C11.)
    public init(wire: Camsync_V1_SessionConfiguration) throws(WireMappingError) {
        var outputs: [CaptureOutput] = []
        outputs.reserveCapacity(wire.outputs.count)
        for (index, output) in wire.outputs.enumerated() {
            outputs.append(try CaptureOutput(wire: output, field: "outputs[\(index)]"))
        }
        var videoDataResolutions: [CaptureResolution] = []
        videoDataResolutions.reserveCapacity(wire.videoDataResolutions.count)
        for (index, resolution) in wire.videoDataResolutions.enumerated() {
            videoDataResolutions.append(try CaptureResolution(wire: resolution, field: "video_data_resolutions[\(index)]"))
        }
        var additionalCameras: [CameraID] = []
        additionalCameras.reserveCapacity(wire.additionalCameras.count)
        for (index, camera) in wire.additionalCameras.enumerated() {
            additionalCameras.append(try requireCameraID(true, camera, "additional_cameras[\(index)]"))
        }
        self.init(
            camera: try requireCameraID(wire.hasCamera, wire.camera, "camera"),
            multitaskingCameraAccessEnabled: wire.multitaskingCameraAccessEnabled,
            outputs: outputs,
            resolution: try CaptureResolution(wire: wire.resolution),
            proRAW: wire.proRaw,
            deepFusion: wire.deepFusion,
            frameRate: Int(truncatingIfNeeded: wire.frameRate),
            hardwareCost: wire.hasHardwareCost ? wire.hardwareCost : nil,
            audioInput: wire.audioInput,
            videoDataResolutions: videoDataResolutions,
            runByARKit: wire.runByArkit,
            additionalCameras: additionalCameras
        )
    }
}

// MARK: - SessionState

extension Camsync_V1_SessionState {
    public init(_ state: SessionState) {
        self.init()
        switch state {
        case .running: kind = .running
        case .interrupted(let reason):
            kind = .interrupted
            self.reason = Camsync_V1_InterruptionReason(reason)
        case .stopped: kind = .stopped
        }
    }
}

extension SessionState {
    /// `kind` specified; `reason` specified if and only if kind is INTERRUPTED.
    public init(wire: Camsync_V1_SessionState) throws(WireMappingError) {
        if wire.kind != .interrupted, wire.reason != .unspecified {
            throw WireMappingError("reason", .inconsistent("set on a session state of kind \(wire.kind)"))
        }
        switch wire.kind {
        case .running: self = .running
        case .interrupted: self = .interrupted(try InterruptionReason(wire: wire.reason))
        case .stopped: self = .stopped
        case .unspecified: throw WireMappingError("kind", .unspecified)
        case .UNRECOGNIZED(let n): throw WireMappingError("kind", .unrecognized(n))
        }
    }
}
