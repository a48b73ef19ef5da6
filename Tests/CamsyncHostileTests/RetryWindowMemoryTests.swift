import CamsyncCoordinator
import CamsyncHostile
import CamsyncPolicy
import CamsyncWire
import Foundation
import Testing

/// Finding of the hostile-input work (docs/HOSTILE.md, "Findings"), now fixed: the coordinator's
/// retry window (K5) is bounded in entries (65,536), and what one entry can hold is bounded too.
/// Ids over 255 bytes never get past the wire mapping (MALFORMED, not remembered), and a refusal
/// text is cut to 512 characters before it is remembered, whatever the command named.
@Suite("Hostile input: retry window memory")
struct RetryWindowMemoryTests {
    @Test("huge ids are refused at the wire and never reach the retry window")
    func hugeIdsAreMalformed() throws {
        var (core, _) = HostileCorpus.baseCore()
        let before = core.sequence
        for index in 0..<16 {
            let ghost = AppID(device: HostileCorpus.ipad1, bundleID: String(repeating: "x", count: 64 * 1024) + "\(index)")
            let bytes = Envelope.request(.openFullScreen(ghost, trigger: .user), sender: "ipad-1",
                                         requestID: UInt64(1_000 + index)).serializedBytes()
            #expect(try HostileInput.exercise(bytes, core: &core, at: Instant(milliseconds: 9_000_000)) == .invalidCommand)
        }
        #expect(core.sequence == before)
    }

    @Test("a remembered refusal stays small even when the command names huge ids")
    func rememberedRefusalsAreBounded() {
        var (core, _) = HostileCorpus.baseCore()
        let ghost = AppID(device: HostileCorpus.ipad1, bundleID: String(repeating: "x", count: 64 * 1024))
        _ = core.handle(.openFullScreen(ghost, trigger: .user), from: "ipad-1", requestID: 1_000, isAdmin: false,
                        at: Instant(milliseconds: 9_000_000))
        let (outcome, isRetry) = core.handle(.openFullScreen(ghost, trigger: .user), from: "ipad-1", requestID: 1_000,
                                             isAdmin: false, at: Instant(milliseconds: 9_000_001))
        #expect(isRetry)
        guard case .refused(_, let message, _) = outcome else { Issue.record("not refused"); return }
        #expect(message.utf8.count <= 4_096, "a remembered refusal holds \(message.utf8.count) bytes")
    }
}
