public import CamsyncPolicy
internal import SwiftProtobuf

// MARK: - Validation helpers

/// The longest id (node id, bundle id, camera name) the protocol accepts, in UTF-8 bytes. Longer ids
/// are refused as MALFORMED so a hostile peer cannot grow state, journal or replies with huge strings.
public let maxIdentifierBytes = 255

/// A node id from a required string field: non-empty, at most `maxIdentifierBytes`, without a zero
/// byte (it ends a device group's topic, `EventTopic.node`).
func nodeID(_ raw: String, _ field: @autoclosure () -> String) throws(WireMappingError) -> NodeID {
    let id = try nonEmpty(raw, field())
    if id.utf8.contains(0) { throw WireMappingError(field(), .inconsistent("holds a zero byte")) }
    return NodeID(id)
}

/// A required non-empty string of at most `maxIdentifierBytes`.
func nonEmpty(_ raw: String, _ field: @autoclosure () -> String) throws(WireMappingError) -> String {
    if raw.isEmpty { throw WireMappingError(field(), .empty) }
    if raw.utf8.count > maxIdentifierBytes {
        throw WireMappingError(field(), .inconsistent("longer than \(maxIdentifierBytes) bytes"))
    }
    return raw
}

/// A required message field (proto3 presence).
func required<M>(_ has: Bool, _ value: M, _ field: @autoclosure () -> String) throws(WireMappingError) -> M {
    if !has { throw WireMappingError(field(), .missing) }
    return value
}

/// Maps a protobuf enum through `table`; UNSPECIFIED and unknown numbers are errors.
func decodeEnum<W: SwiftProtobuf.Enum, D>(
    _ value: W, _ field: @autoclosure () -> String, _ table: (W) -> D?
) throws(WireMappingError) -> D {
    if let domain = table(value) { return domain }
    if value.rawValue == 0 { throw WireMappingError(field(), .unspecified) }
    throw WireMappingError(field(), .unrecognized(value.rawValue))
}

// MARK: - AppID ↔ AppRef

extension Camsync_V1_AppRef {
    public init(_ app: AppID) {
        self.init()
        device = app.device.rawValue
        bundleID = app.bundleID
    }
}

extension AppID {
    /// Both `device` and `bundle_id` must be non-empty.
    public init(wire: Camsync_V1_AppRef) throws(WireMappingError) {
        self.init(device: try nodeID(wire.device, "device"), bundleID: try nonEmpty(wire.bundleID, "bundle_id"))
    }
}

// MARK: - CameraID ↔ CameraRef

extension Camsync_V1_CameraRef {
    public init(_ camera: CameraID) {
        self.init()
        host = camera.host.rawValue
        name = camera.name
    }
}

extension CameraID {
    /// Both `host` and `name` must be non-empty.
    public init(wire: Camsync_V1_CameraRef) throws(WireMappingError) {
        self.init(host: try nodeID(wire.host, "host"), name: try nonEmpty(wire.name, "name"))
    }
}

// MARK: - CameraSystemID ↔ CameraSystemRef

extension Camsync_V1_CameraSystemRef {
    public init(_ system: CameraSystemID) {
        self.init()
        switch system {
        case .builtIn(let device): kind = .builtinDevice(device.rawValue)
        case .external(let camera): kind = .externalCamera(Camsync_V1_CameraRef(camera))
        }
    }
}

extension CameraSystemID {
    /// Exactly one of `builtin_device` (non-empty) / `external_camera` must be set.
    public init(wire: Camsync_V1_CameraSystemRef) throws(WireMappingError) {
        switch wire.kind {
        case .builtinDevice(let device)?: self = .builtIn(device: try nodeID(device, "builtin_device"))
        case .externalCamera(let camera)?: self = .external(try within("external_camera") { () throws(WireMappingError) in try CameraID(wire: camera) })
        case nil: throw WireMappingError("kind", .missing)
        }
    }
}

// MARK: - Frame

extension Camsync_V1_Frame {
    public init(_ frame: Frame) {
        self.init()
        x = Int64(frame.x)
        y = Int64(frame.y)
        width = Int64(frame.width)
        height = Int64(frame.height)
    }
}

extension Frame {
    /// Any values are accepted here; the engine judges sizes (invalidArgument).
    public init(wire: Camsync_V1_Frame) {
        self.init(x: Int(truncatingIfNeeded: wire.x), y: Int(truncatingIfNeeded: wire.y), width: Int(truncatingIfNeeded: wire.width), height: Int(truncatingIfNeeded: wire.height))
    }
}

/// A required `Frame` message field.
func requireFrame(_ has: Bool, _ value: Camsync_V1_Frame, _ field: @autoclosure () -> String) throws(WireMappingError) -> Frame {
    if !has { throw WireMappingError(field(), .missing) }
    return Frame(wire: value)
}

/// A required `AppRef` message field.
func requireAppID(_ has: Bool, _ value: Camsync_V1_AppRef, _ field: String) throws(WireMappingError) -> AppID {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try AppID(wire: value) }
}

/// A required `CameraRef` message field.
func requireCameraID(_ has: Bool, _ value: Camsync_V1_CameraRef, _ field: String) throws(WireMappingError) -> CameraID {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try CameraID(wire: value) }
}

/// A required `CameraSystemRef` message field.
func requireCameraSystemID(_ has: Bool, _ value: Camsync_V1_CameraSystemRef, _ field: String) throws(WireMappingError) -> CameraSystemID {
    if !has { throw WireMappingError(field, .missing) }
    return try within(field) { () throws(WireMappingError) in try CameraSystemID(wire: value) }
}
