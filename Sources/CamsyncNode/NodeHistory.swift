public import CamsyncPolicy
import Foundation

/// One line of a node's history file (`camsync node --history FILE`): JSON, one object per line,
/// written and flushed as it happens so it survives `kill -9`. The soak checker reads these files
/// to see, from the resources' side, who captured on which camera when (C8) and what apps saw.
public struct NodeHistoryEntry: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// The node process started.
        case start
        /// A camera fence decision (C8).
        case fence
        /// An app-facing callback.
        case app
    }

    public var kind: Kind
    public var node: String
    /// Wall-clock milliseconds.
    public var ms: Int64
    public var seq: UInt64?
    // fence
    public var decision: String?
    public var system: String?
    public var app: String?
    public var token: UInt64?
    public var highest: UInt64?
    public var snapshot: Bool?
    // app
    public var name: String?
    public var details: [String: String]?

    public init(kind: Kind, node: String, ms: Int64, seq: UInt64? = nil) {
        self.kind = kind
        self.node = node
        self.ms = ms
        self.seq = seq
    }

    public init(fence record: FenceRecord, node: NodeID) {
        self.init(kind: .fence, node: node.rawValue, ms: record.wallMilliseconds, seq: record.sequence)
        let d = record.decision
        switch d.kind {
        case .allowed: decision = "allowed"
        case .released: decision = "released"
        case .refusedStale(let h):
            decision = "refusedStale"
            highest = h.value
        }
        system = d.system.description
        app = d.app.description
        token = d.token.value
        snapshot = d.fromSnapshot ? true : nil
    }

    public init(app event: AppFacingEvent, node: NodeID, ms: Int64) {
        self.init(kind: .app, node: node.rawValue, ms: ms, seq: event.sequence)
        app = event.app.description
        name = event.name
        details = Dictionary(event.details, uniquingKeysWith: { _, last in last })
    }

    /// `"ipad-1/builtin"` → the device's built-in system; `"display-1/cam"` → that display camera.
    public static func cameraSystem(_ text: String) -> CameraSystemID? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let host = NodeID(String(text[..<slash])), rest = String(text[text.index(after: slash)...])
        return rest == "builtin" ? .builtIn(device: host) : .external(CameraID(host: host, name: rest))
    }

    /// `"ipad-1/com.example.call"` → that app.
    public static func appID(_ text: String) -> AppID? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        return AppID(device: NodeID(String(text[..<slash])), bundleID: String(text[text.index(after: slash)...]))
    }

    /// Reads a history file; lines that do not parse (a torn last line after `kill -9`) are skipped.
    public static func read(path: String) -> [NodeHistoryEntry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(NodeHistoryEntry.self, from: Data($0.utf8)) }
    }
}

/// Appends history entries to a file, one write(2) per line (no user-space buffering).
final class NodeHistoryFile {
    private let handle: FileHandle
    private let encoder = JSONEncoder()

    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        encoder.outputFormatting = [.sortedKeys]
    }

    func append(_ entry: NodeHistoryEntry) {
        guard var data = try? encoder.encode(entry) else { return }
        data.append(0x0A)
        handle.write(data)
    }

    deinit { try? handle.close() }
}
