public import CamsyncPolicy

// JSON-lines support for the policy vocabulary the history carries. CamsyncPolicy stays free of
// Codable (it is the pure engine); the soak history needs it, so the conformances live here.
// Enums with payloads encode as {"case": name, …fields}; structs as their stored properties.

/// A string coding key.
struct SoakKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

typealias DC = KeyedDecodingContainer<SoakKey>
typealias EC = KeyedEncodingContainer<SoakKey>

extension KeyedDecodingContainer where K == SoakKey {
    func req<T: Decodable>(_ key: String) throws -> T { try decode(T.self, forKey: SoakKey(key)) }
    func opt<T: Decodable>(_ key: String) throws -> T? { try decodeIfPresent(T.self, forKey: SoakKey(key)) }
    func tag() throws -> String { try decode(String.self, forKey: SoakKey("case")) }
    func unknown(_ tag: String, _ type: String) -> DecodingError {
        .dataCorruptedError(forKey: SoakKey("case"), in: self, debugDescription: "unknown \(type) case \(tag)")
    }
}

extension KeyedEncodingContainer where K == SoakKey {
    mutating func put<T: Encodable>(_ value: T, _ key: String) throws { try encode(value, forKey: SoakKey(key)) }
    mutating func put<T: Encodable>(_ value: T?, _ key: String) throws { try encodeIfPresent(value, forKey: SoakKey(key)) }
    mutating func tag(_ name: String) throws { try encode(name, forKey: SoakKey("case")) }
}

func keyed(_ decoder: any Decoder) throws -> DC { try decoder.container(keyedBy: SoakKey.self) }
func keyed(_ encoder: any Encoder) -> EC { encoder.container(keyedBy: SoakKey.self) }

// MARK: Raw-value types (the standard library supplies the implementation)

extension NodeID: Codable {}
extension NodeKind: Codable {}
extension LayoutDirection: Codable {}
extension CameraPosition: Codable {}
extension AudioSessionCategory: Codable {}
extension Role: Codable {}
extension SplitSide: Codable {}
extension BackgroundCause: Codable {}
extension OpenTrigger: Codable {}
extension PiPKind: Codable {}
extension PiPStartTrigger: Codable {}
extension InterruptionReason: Codable {}
extension CaptureResolution: Codable {}
extension CaptureOutput: Codable {}
extension RecordingOutput: Codable {}
extension SystemPressureLevel: Codable {}

// MARK: Identifiers

extension AppID: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(device: try c.req("device"), bundleID: try c.req("bundleID"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(device, "device"); try c.put(bundleID, "bundleID")
    }
}

extension CameraID: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(host: try c.req("host"), name: try c.req("name"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(host, "host"); try c.put(name, "name")
    }
}

extension CameraSystemID: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        switch try c.tag() {
        case "builtIn": self = .builtIn(device: try c.req("device"))
        case "external": self = .external(try c.req("camera"))
        case let other: throw c.unknown(other, "CameraSystemID")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        switch self {
        case .builtIn(let device): try c.tag("builtIn"); try c.put(device, "device")
        case .external(let camera): try c.tag("external"); try c.put(camera, "camera")
        }
    }
}

extension Instant: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(milliseconds: try decoder.singleValueContainer().decode(Int64.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(milliseconds)
    }
}

extension GrantToken: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(UInt64.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}

// MARK: Layout and apps

extension Frame: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(x: try c.req("x"), y: try c.req("y"), width: try c.req("width"), height: try c.req("height"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(x, "x"); try c.put(y, "y"); try c.put(width, "width"); try c.put(height, "height")
    }
}

extension StageWindow: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(screen: try c.req("screen"), frame: try c.req("frame"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(screen, "screen"); try c.put(frame, "frame")
    }
}

extension Scene: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        switch try c.tag() {
        case "notRunning": self = .notRunning
        case "fullScreen": self = .fullScreen
        case "splitPrimary": self = .splitPrimary
        case "splitSecondary": self = .splitSecondary
        case "slideOver": self = .slideOver
        case "stageWindow": self = .stageWindow(try c.req("window"))
        case "background": self = .background
        case "terminated": self = .terminated
        case let other: throw c.unknown(other, "Scene")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        switch self {
        case .notRunning: try c.tag("notRunning")
        case .fullScreen: try c.tag("fullScreen")
        case .splitPrimary: try c.tag("splitPrimary")
        case .splitSecondary: try c.tag("splitSecondary")
        case .slideOver: try c.tag("slideOver")
        case .stageWindow(let window): try c.tag("stageWindow"); try c.put(window, "window")
        case .background: try c.tag("background")
        case .terminated: try c.tag("terminated")
        }
    }
}

extension AppSpec: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(
            bundleID: try c.req("bundleID"), deploymentTarget: try c.req("deploymentTarget"),
            hasMultitaskingCameraAccessEntitlement: try c.req("hasMultitaskingCameraAccessEntitlement"),
            requiresFullScreen: try c.req("requiresFullScreen"),
            backgroundModeAudioAirPlayPiP: try c.req("backgroundModeAudioAirPlayPiP"),
            audioSessionCategory: try c.req("audioSessionCategory"), isSystemCameraApp: try c.req("isSystemCameraApp"),
            memoryFootprintMB: try c.req("memoryFootprintMB"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(bundleID, "bundleID"); try c.put(deploymentTarget, "deploymentTarget")
        try c.put(hasMultitaskingCameraAccessEntitlement, "hasMultitaskingCameraAccessEntitlement")
        try c.put(requiresFullScreen, "requiresFullScreen")
        try c.put(backgroundModeAudioAirPlayPiP, "backgroundModeAudioAirPlayPiP")
        try c.put(audioSessionCategory, "audioSessionCategory"); try c.put(isSystemCameraApp, "isSystemCameraApp")
        try c.put(memoryFootprintMB, "memoryFootprintMB")
    }
}

// MARK: Nodes

extension CameraSpec: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(name: try c.req("name"), position: try c.req("position"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(name, "name"); try c.put(position, "position")
    }
}

extension DeviceAttributes: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(
            model: try c.req("model"), osMajor: try c.req("osMajor"), pipSupported: try c.req("pipSupported"),
            multitaskingCameraSupported: try c.req("multitaskingCameraSupported"),
            stageManagerSupported: try c.req("stageManagerSupported"), stageManagerEnabled: try c.req("stageManagerEnabled"),
            layoutDirection: try c.req("layoutDirection"), autoPiPEnabled: try c.req("autoPiPEnabled"),
            cameras: try c.req("cameras"), apps: try c.req("apps"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(model, "model"); try c.put(osMajor, "osMajor"); try c.put(pipSupported, "pipSupported")
        try c.put(multitaskingCameraSupported, "multitaskingCameraSupported")
        try c.put(stageManagerSupported, "stageManagerSupported"); try c.put(stageManagerEnabled, "stageManagerEnabled")
        try c.put(layoutDirection, "layoutDirection"); try c.put(autoPiPEnabled, "autoPiPEnabled")
        try c.put(cameras, "cameras"); try c.put(apps, "apps")
    }
}

extension DisplayAttributes: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(name: try c.req("name"), attachedTo: try c.opt("attachedTo"), cameras: try c.req("cameras"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(name, "name"); try c.put(attachedTo, "attachedTo"); try c.put(cameras, "cameras")
    }
}

extension NodeRegistration.Attributes: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        switch try c.tag() {
        case "device": self = .device(try c.req("attributes"))
        case "display": self = .display(try c.req("attributes"))
        case let other: throw c.unknown(other, "NodeRegistration.Attributes")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        switch self {
        case .device(let a): try c.tag("device"); try c.put(a, "attributes")
        case .display(let a): try c.tag("display"); try c.put(a, "attributes")
        }
    }
}

extension NodeRegistration: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(node: try c.req("node"), attributes: try c.req("attributes"), assertions: try c.req("assertions"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(node, "node"); try c.put(attributes, "attributes"); try c.put(assertions, "assertions")
    }
}

extension AppAssertion: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(bundleID: try c.req("bundleID"), scene: try c.req("scene"), session: try c.opt("session"),
                  sessionWantsToRun: try c.req("sessionWantsToRun"), pip: try c.opt("pip"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(bundleID, "bundleID"); try c.put(scene, "scene"); try c.put(session, "session")
        try c.put(sessionWantsToRun, "sessionWantsToRun"); try c.put(pip, "pip")
    }
}

// MARK: Capture and PiP

extension SessionConfiguration: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(
            camera: try c.req("camera"), multitaskingCameraAccessEnabled: try c.req("multitaskingCameraAccessEnabled"),
            outputs: try c.req("outputs"), resolution: try c.req("resolution"), proRAW: try c.req("proRAW"),
            deepFusion: try c.req("deepFusion"), frameRate: try c.req("frameRate"), hardwareCost: try c.opt("hardwareCost"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(camera, "camera"); try c.put(multitaskingCameraAccessEnabled, "multitaskingCameraAccessEnabled")
        try c.put(outputs, "outputs"); try c.put(resolution, "resolution"); try c.put(proRAW, "proRAW")
        try c.put(deepFusion, "deepFusion"); try c.put(frameRate, "frameRate"); try c.put(hardwareCost, "hardwareCost")
    }
}

extension SessionState: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        switch try c.tag() {
        case "running": self = .running
        case "interrupted": self = .interrupted(try c.req("reason"))
        case "stopped": self = .stopped
        case let other: throw c.unknown(other, "SessionState")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        switch self {
        case .running: try c.tag("running")
        case .interrupted(let reason): try c.tag("interrupted"); try c.put(reason, "reason")
        case .stopped: try c.tag("stopped")
        }
    }
}

extension PiPControllerSetup: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(kind: try c.req("kind"), hasContentSource: try c.req("hasContentSource"),
                  canStartAutomaticallyFromInline: try c.req("canStartAutomaticallyFromInline"),
                  playingVideoFillsWindow: try c.req("playingVideoFillsWindow"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(kind, "kind"); try c.put(hasContentSource, "hasContentSource")
        try c.put(canStartAutomaticallyFromInline, "canStartAutomaticallyFromInline")
        try c.put(playingVideoFillsWindow, "playingVideoFillsWindow")
    }
}

extension PiPWindowState: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        switch try c.tag() {
        case "inactive": self = .inactive
        case "active": self = .active(screen: try c.req("screen"), frame: try c.req("frame"), stashed: try c.req("stashed"))
        case "suspended": self = .suspended
        case let other: throw c.unknown(other, "PiPWindowState")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        switch self {
        case .inactive: try c.tag("inactive")
        case .active(let screen, let frame, let stashed):
            try c.tag("active"); try c.put(screen, "screen"); try c.put(frame, "frame"); try c.put(stashed, "stashed")
        case .suspended: try c.tag("suspended")
        }
    }
}

// MARK: State

extension NodeRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(id: try c.req("id"), registration: try c.req("registration"), alive: try c.req("alive"),
                  attachedTo: try c.opt("attachedTo"), stageManagerEnabled: try c.req("stageManagerEnabled"),
                  autoPiPEnabled: try c.req("autoPiPEnabled"), layoutDirection: try c.req("layoutDirection"),
                  registeredAt: try c.req("registeredAt"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(id, "id"); try c.put(registration, "registration"); try c.put(alive, "alive")
        try c.put(attachedTo, "attachedTo"); try c.put(stageManagerEnabled, "stageManagerEnabled")
        try c.put(autoPiPEnabled, "autoPiPEnabled"); try c.put(layoutDirection, "layoutDirection")
        try c.put(registeredAt, "registeredAt")
    }
}

extension RecordingRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(output: try c.req("output"), startedAt: try c.req("startedAt"),
                  multitaskedDuringRecording: try c.req("multitaskedDuringRecording"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(output, "output"); try c.put(startedAt, "startedAt")
        try c.put(multitaskedDuringRecording, "multitaskedDuringRecording")
    }
}

extension CaptureSessionRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(configuration: try c.req("configuration"), hardwareCost: try c.req("hardwareCost"),
                  multitaskingCameraAccessSupported: try c.req("multitaskingCameraAccessSupported"),
                  wantsToRun: try c.req("wantsToRun"), state: try c.req("state"), preemptedAt: try c.opt("preemptedAt"),
                  waitingSince: try c.opt("waitingSince"), recording: try c.opt("recording"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(configuration, "configuration"); try c.put(hardwareCost, "hardwareCost")
        try c.put(multitaskingCameraAccessSupported, "multitaskingCameraAccessSupported")
        try c.put(wantsToRun, "wantsToRun"); try c.put(state, "state"); try c.put(preemptedAt, "preemptedAt")
        try c.put(waitingSince, "waitingSince"); try c.put(recording, "recording")
    }
}

extension PiPRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(setup: try c.req("setup"), window: try c.req("window"), suspendedAt: try c.opt("suspendedAt"),
                  restoreDeadline: try c.opt("restoreDeadline"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(setup, "setup"); try c.put(window, "window"); try c.put(suspendedAt, "suspendedAt")
        try c.put(restoreDeadline, "restoreDeadline")
    }
}

extension AppRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(id: try c.req("id"), spec: try c.req("spec"), scene: try c.req("scene"), role: try c.opt("role"),
                  memoryFootprintMB: try c.req("memoryFootprintMB"), session: try c.opt("session"), pip: try c.opt("pip"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(id, "id"); try c.put(spec, "spec"); try c.put(scene, "scene"); try c.put(role, "role")
        try c.put(memoryFootprintMB, "memoryFootprintMB"); try c.put(session, "session"); try c.put(pip, "pip")
    }
}

extension CameraSystemRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(id: try c.req("id"), cameras: try c.req("cameras"), pressure: try c.req("pressure"),
                  holder: try c.opt("holder"), lastToken: try c.req("lastToken"), available: try c.req("available"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(id, "id"); try c.put(cameras, "cameras"); try c.put(pressure, "pressure")
        try c.put(holder, "holder"); try c.put(lastToken, "lastToken"); try c.put(available, "available")
    }
}

extension ClusterState: Codable {
    /// Dictionaries are written as arrays of records sorted by key (each record carries its id),
    /// so the encoding is deterministic and readable.
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init()
        let nodes: [NodeRecord] = try c.req("nodes")
        let apps: [AppRecord] = try c.req("apps")
        let systems: [CameraSystemRecord] = try c.req("cameraSystems")
        self.nodes = Dictionary(nodes.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.cameraSystems = Dictionary(systems.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let shown: [NodeID] = try c.req("recordingAlertShown")
        recordingAlertShown = Set(shown)
        ordinal = try c.req("ordinal")
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(nodes.sorted { $0.key < $1.key }.map(\.value), "nodes")
        try c.put(apps.sorted { $0.key < $1.key }.map(\.value), "apps")
        try c.put(cameraSystems.sorted { $0.key < $1.key }.map(\.value), "cameraSystems")
        try c.put(recordingAlertShown.sorted(), "recordingAlertShown")
        try c.put(ordinal, "ordinal")
    }
}

extension PolicySettings: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        self.init(stageWindowLimitPerScreen: try c.req("stageWindowLimitPerScreen"),
                  backgroundMediaMemoryLimitMB: try c.req("backgroundMediaMemoryLimitMB"),
                  seriousPressureMaxFrameRate: try c.req("seriousPressureMaxFrameRate"),
                  criticalPressureMaxFrameRate: try c.req("criticalPressureMaxFrameRate"),
                  pipRestoreDeadlineMilliseconds: try c.req("pipRestoreDeadlineMilliseconds"),
                  maxHardwareCost: try c.req("maxHardwareCost"))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        try c.put(stageWindowLimitPerScreen, "stageWindowLimitPerScreen")
        try c.put(backgroundMediaMemoryLimitMB, "backgroundMediaMemoryLimitMB")
        try c.put(seriousPressureMaxFrameRate, "seriousPressureMaxFrameRate")
        try c.put(criticalPressureMaxFrameRate, "criticalPressureMaxFrameRate")
        try c.put(pipRestoreDeadlineMilliseconds, "pipRestoreDeadlineMilliseconds")
        try c.put(maxHardwareCost, "maxHardwareCost")
    }
}
