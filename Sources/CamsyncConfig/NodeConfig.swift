public import CamsyncPolicy
import Foundation
import Yams

/// A node's config file (YAML): who the node is, and everything it declares when it registers.
/// The format is documented in docs/OPERATIONS.md ("Node config files").
public struct NodeConfig: Sendable, Equatable {
    public var registration: NodeRegistration
    public var id: NodeID { registration.node }

    public init(registration: NodeRegistration) {
        self.registration = registration
    }

    /// Parses a config from YAML text. Errors name the field at fault.
    public init(yaml: String) throws {
        let file: File
        do {
            file = try YAMLDecoder().decode(File.self, from: yaml)
        } catch let error as DecodingError {
            throw NodeConfigError(message: Self.describe(error))
        } catch {
            throw NodeConfigError(message: "not valid YAML: \(error)")
        }
        self.registration = try file.registration()
    }

    /// Parses the file form only (no validation beyond the YAML shape).
    public static func parseFile(yaml: String) throws -> File {
        do {
            return try YAMLDecoder().decode(File.self, from: yaml)
        } catch let error as DecodingError {
            throw NodeConfigError(message: describe(error))
        }
    }

    /// A config from its parsed file form (topology files embed these).
    public init(file: File) throws {
        self.registration = try file.registration()
    }

    /// Reads and parses a config file.
    public init(path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw NodeConfigError(message: "cannot read node config \(path): \(error.localizedDescription)")
        }
        do {
            try self.init(yaml: text)
        } catch let error as NodeConfigError {
            throw NodeConfigError(message: "\(path): \(error.message)")
        }
    }

    private static func describe(_ error: DecodingError) -> String { describeDecodingError(error) }
}

/// A config file that cannot be used, with a sentence saying why.
public struct NodeConfigError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension NodeConfig {
    /// The YAML shape. Optional fields take the defaults documented in docs/OPERATIONS.md.
    public struct File: Codable, Sendable, Equatable {
        public var id: String
        public var kind: String
        public var device: Device?
        public var display: Display?
        /// Which implementation runs the node: `swift` (`camsync node`, the default) or `c`
        /// (`camsync-display-agent`, displays only). `camsync cluster up` starts the one named.
        public var agent: String?

        public struct Camera: Codable, Sendable, Equatable {
            public var name: String
            public var position: String?
        }

        public struct App: Codable, Sendable, Equatable {
            public var bundleID: String
            public var deploymentTarget: Int?
            public var multitaskingCameraAccessEntitlement: Bool?
            public var requiresFullScreen: Bool?
            public var backgroundModePiP: Bool?
            public var audioSessionCategory: String?
            public var systemCameraApp: Bool?
            public var memoryMB: Int?
        }

        public struct Device: Codable, Sendable, Equatable {
            public var model: String?
            public var os: Int
            public var pipSupported: Bool?
            public var multitaskingCameraSupported: Bool?
            public var stageManagerSupported: Bool?
            public var stageManagerEnabled: Bool?
            public var layoutDirection: String?
            public var autoPiP: Bool?
            public var cameras: [Camera]?
            public var apps: [App]?
            /// C14: AVCaptureMultiCamSession support; absent: the model list decides.
            public var multiCamSupported: Bool?
            /// C14: a LiDAR scanner (the LiDAR Depth Camera); absent: the model list decides.
            public var lidarDepthCameraSupported: Bool?
        }

        public struct Display: Codable, Sendable, Equatable {
            public var name: String?
            public var attachedTo: String?
            public var cameras: [Camera]?
        }

        public func registration() throws -> NodeRegistration {
            guard !id.isEmpty else { throw NodeConfigError(message: "'id' must not be empty") }
            switch agent {
            case nil, "swift": break
            case "c" where kind == "display": break
            case "c": throw NodeConfigError(message: "'agent: c' runs displays only (camsync-display-agent); '\(id)' is a \(kind)")
            case let other?: throw NodeConfigError(message: "'agent' must be 'swift' or 'c', not '\(other)'")
            }
            let registration: NodeRegistration
            switch kind {
            case "device":
                guard let device else { throw NodeConfigError(message: "kind 'device' needs a 'device:' section") }
                registration = NodeRegistration(node: NodeID(id), attributes: .device(try device.attributes(id: id)))
            case "display":
                let display = self.display ?? Display(name: nil, attachedTo: nil, cameras: nil)
                registration = NodeRegistration(node: NodeID(id), attributes: .display(try display.attributes(id: id)))
            default:
                throw NodeConfigError(message: "'kind' must be 'device' or 'display', not '\(kind)'")
            }
            // The rules the coordinator's engine applies at registration: a config it would refuse is
            // refused here, before any process starts.
            do {
                try registration.validate()
            } catch {
                throw NodeConfigError(message: "\(kind) '\(id)' would be refused at registration: \(error.message)")
            }
            return registration
        }
    }
}

extension NodeConfig.File.Camera {
    func spec(defaultPosition: CameraPosition) throws -> CameraSpec {
        guard let raw = position else { return CameraSpec(name: name, position: defaultPosition) }
        guard let position = CameraPosition(rawValue: raw) else {
            throw NodeConfigError(message: "camera '\(name)': position must be one of \(CameraPosition.allCases.map(\.rawValue)), not '\(raw)'")
        }
        return CameraSpec(name: name, position: position)
    }
}

extension NodeConfig.File.App {
    func spec() throws -> AppSpec {
        var category = AudioSessionCategory.soloAmbient
        if let raw = audioSessionCategory {
            guard let parsed = AudioSessionCategory(rawValue: raw) else {
                throw NodeConfigError(message: "app '\(bundleID)': audioSessionCategory must be one of \(AudioSessionCategory.allCases.map(\.rawValue)), not '\(raw)'")
            }
            category = parsed
        }
        return AppSpec(
            bundleID: bundleID, deploymentTarget: deploymentTarget ?? 16,
            hasMultitaskingCameraAccessEntitlement: multitaskingCameraAccessEntitlement ?? false,
            requiresFullScreen: requiresFullScreen ?? false, backgroundModeAudioAirPlayPiP: backgroundModePiP ?? false,
            audioSessionCategory: category, isSystemCameraApp: systemCameraApp ?? false, memoryFootprintMB: memoryMB ?? 100)
    }
}

extension NodeConfig.File.Device {
    func attributes(id: String) throws -> DeviceAttributes {
        guard (9...26).contains(os) else { throw NodeConfigError(message: "device '\(id)': os must be 9…26, not \(os)") }
        var direction = LayoutDirection.leftToRight
        if let raw = layoutDirection {
            guard let parsed = LayoutDirection(rawValue: raw) else {
                throw NodeConfigError(message: "device '\(id)': layoutDirection must be leftToRight or rightToLeft, not '\(raw)'")
            }
            direction = parsed
        }
        let apps = try (self.apps ?? []).map { try $0.spec() }
        var seen = Set<String>()
        for app in apps where !seen.insert(app.bundleID).inserted {
            throw NodeConfigError(message: "device '\(id)': app '\(app.bundleID)' is listed twice")
        }
        return DeviceAttributes(
            model: model ?? "iPad", osMajor: os, pipSupported: pipSupported ?? true,
            multitaskingCameraSupported: multitaskingCameraSupported ?? true,
            stageManagerSupported: stageManagerSupported ?? true, stageManagerEnabled: stageManagerEnabled ?? false,
            layoutDirection: direction, autoPiPEnabled: autoPiP ?? true,
            cameras: try (cameras ?? []).map { try $0.spec(defaultPosition: .back) }, apps: apps,
            isMultiCamSupported: multiCamSupported, lidarDepthCameraSupported: lidarDepthCameraSupported)
    }
}

extension NodeConfig.File.Display {
    func attributes(id: String) throws -> DisplayAttributes {
        DisplayAttributes(name: name ?? id, attachedTo: attachedTo.map { NodeID($0) },
                          cameras: try (cameras ?? []).map { try $0.spec(defaultPosition: .external) })
    }
}

/// A YAML decoding error as a sentence naming the field at fault (`missing field 'id' at top level`,
/// `bad value at display.cameras[0]: …`); other errors as they describe themselves.
public func describeDecodingError(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return p.isEmpty ? "top level" : p
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing field '\(key.stringValue)' at \(path(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
        return "bad value at \(path(context)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
}
