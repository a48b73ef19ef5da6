import CamsyncPolicy
import Foundation
import Testing
@testable import CamsyncNode
@testable import CamsyncNodeProcess

/// The history file carries the fence's own `FenceRecord`, typed, from the node to the soak driver.
@Suite struct NodeHistoryTests {
    @Test("fence records, app events and starts read back as written; a torn last line is skipped")
    func historyFileRoundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-history-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let node: NodeID = "display-1"
        let call = AppID(device: "ipad-1", bundleID: "com.example.call")
        let system = CameraSystemID.external(CameraID(host: node, name: "cam"))
        let entries: [NodeHistoryEntry] = [
            .start(node: node, at: Instant(milliseconds: 1_000)),
            .fence(record: FenceRecord(node: node, decision: FenceDecision(.allowed, system: system, app: call, token: GrantToken(3)),
                                       sequence: 7, at: Instant(milliseconds: 1_010))),
            .fence(record: FenceRecord(node: node, decision: FenceDecision(.refusedStale(highest: GrantToken(3)), system: system, app: call,
                                                                           token: GrantToken(2), fromSnapshot: true),
                                       sequence: 8, at: Instant(milliseconds: 1_020))),
            NodeHistoryEntry(app: AppFacingEvent(sequence: 9, app: call, name: "recordingQualityAlert", details: [("output", "movieFile")]),
                             node: node, at: Instant(milliseconds: 1_030)),
        ]
        do {
            let file = try NodeHistoryFile(path: path)
            for entry in entries { file.append(entry) }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"fence":{"record":{"node":"disp"#.utf8))
        try handle.close()
        #expect(NodeHistoryEntry.read(path: path) == entries)
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == entries.count + 1)
    }
}
