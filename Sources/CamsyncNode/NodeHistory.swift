public import CamsyncPolicy
import Foundation

/// One line of a node's history file (`camsync node --history FILE`): JSON, one object per line,
/// written and flushed as it happens so it survives `kill -9`. The soak driver reads these files
/// to see, from the resources' side, who captured on which camera when (C8) and what apps saw.
/// The format is the synthesized `Codable` one (`{"fence":{"record":{…}}}`); only this program
/// writes and reads it.
public enum NodeHistoryEntry: Codable, Sendable, Equatable {
    /// The node process started.
    case start(node: NodeID, at: Instant)
    /// A camera fence decision (C8), exactly as the fence log holds it.
    case fence(record: FenceRecord)
    /// An app-facing callback (`AppFacingEvent`), seen once the replica applied `sequence`.
    case app(node: NodeID, at: Instant, sequence: UInt64, app: AppID, name: String, details: [String: String])

    public init(app event: AppFacingEvent, node: NodeID, at: Instant) {
        self = .app(node: node, at: at, sequence: event.sequence, app: event.app, name: event.name,
                    details: Dictionary(event.details, uniquingKeysWith: { _, last in last }))
    }

    /// A camera system as `ctl` takes it: `"ipad-1/builtin"` → the device's built-in system;
    /// `"display-1/cam"` → that display camera.
    public static func cameraSystem(_ text: String) -> CameraSystemID? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let host = NodeID(String(text[..<slash])), rest = String(text[text.index(after: slash)...])
        return rest == "builtin" ? .builtIn(device: host) : .external(CameraID(host: host, name: rest))
    }

    /// Reads a history file; lines that do not parse (a torn last line after `kill -9`) are skipped.
    public static func read(path: String) -> [NodeHistoryEntry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(NodeHistoryEntry.self, from: Data($0.utf8)) }
    }
}
