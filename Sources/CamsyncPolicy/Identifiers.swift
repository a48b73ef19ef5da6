/// The id of a node process: one iPad (device) or one external display.
public struct NodeID: RawRepresentable, Hashable, Codable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: NodeID, b: NodeID) -> Bool { a.rawValue < b.rawValue }
}

/// An app installed on a device: the device and the app's bundle identifier.
///
/// The engine looks apps up by id a dozen times per command (`ClusterState.apps`, the index, the
/// transaction's sets): the id hashes its two strings once, when it is made, and every look-up
/// hashes that number (hashing the strings each time was 4–5 % of a command's cost).
public struct AppID: Hashable, Codable, Comparable, Sendable, CustomStringConvertible {
    public let device: NodeID
    public let bundleID: String
    /// The hash of `device` and `bundleID` (this process's seed).
    private let hashCode: Int

    public init(device: NodeID, bundleID: String) {
        self.device = device
        self.bundleID = bundleID
        var hasher = Hasher()
        hasher.combine(device)
        hasher.combine(bundleID)
        hashCode = hasher.finalize()
    }

    private enum CodingKeys: String, CodingKey { case device, bundleID }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(device: try container.decode(NodeID.self, forKey: .device),
                  bundleID: try container.decode(String.self, forKey: .bundleID))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(bundleID, forKey: .bundleID)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }

    public static func == (a: AppID, b: AppID) -> Bool {
        a.hashCode == b.hashCode && a.device == b.device && a.bundleID == b.bundleID
    }

    public var description: String { "\(device)/\(bundleID)" }
    public static func < (a: AppID, b: AppID) -> Bool {
        (a.device, a.bundleID) < (b.device, b.bundleID)
    }
}

/// A camera hosted by a node (a device's built-in camera or a display's camera).
public struct CameraID: Hashable, Codable, Comparable, Sendable, CustomStringConvertible {
    public let host: NodeID
    public let name: String
    public init(host: NodeID, name: String) {
        self.host = host
        self.name = name
    }
    public var description: String { "\(host)/\(name)" }
    public static func < (a: CameraID, b: CameraID) -> Bool { (a.host, a.name) < (b.host, b.name) }
}

/// The unit of camera arbitration (SPEC §1): a device's built-in cameras form one
/// system; every display camera is a system of its own.
public enum CameraSystemID: Hashable, Codable, Comparable, Sendable, CustomStringConvertible {
    /// All built-in cameras of a device.
    case builtIn(device: NodeID)
    /// One camera of an external display.
    case external(CameraID)

    public var host: NodeID {
        switch self {
        case .builtIn(let device): device
        case .external(let camera): camera.host
        }
    }

    public var description: String {
        switch self {
        case .builtIn(let device): "\(device)/builtin"
        case .external(let camera): camera.description
        }
    }

    public static func < (a: CameraSystemID, b: CameraSystemID) -> Bool { a.description < b.description }
}

/// A point in time in milliseconds, given to the engine by its shell. The engine never reads a clock.
public struct Instant: Hashable, Codable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public static let zero = Instant(milliseconds: 0)
    public static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }
    public func adding(milliseconds ms: Int64) -> Instant { Instant(milliseconds: milliseconds + ms) }
    public var description: String { "\(milliseconds)ms" }
}

/// A fencing token (C8): strictly increasing per camera system, across restarts.
public struct GrantToken: Hashable, Codable, Comparable, Sendable, CustomStringConvertible {
    public var value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public static func < (a: GrantToken, b: GrantToken) -> Bool { a.value < b.value }
    public var description: String { "#\(value)" }
}
