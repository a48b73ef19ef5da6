import CamsyncNode
import Foundation

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
