import CamsyncHostile
import CamsyncProcessLab
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing

/// The `camsync` binary built next to this test bundle.
func camsyncBinary() throws -> String { try CamsyncExecutable.besideThisProcess() }

@Suite("Hostile input: flooding a real coordinator", .ownThreads, .clusterSlot, .serialized)
struct FloodTests {
    @Test("every flood frame kind has templates, and each template is what its kind says")
    func templates() throws {
        let frames = FloodFrames(realNode: "ipad-1", otherNode: "ipad-2")
        for kind in FloodKind.allCases where kind != .hugeReference {
            let templates = try #require(frames.templates[kind], "\(kind)")
            #expect(!templates.isEmpty, "\(kind)")
            for template in templates where kind.answeredWithoutRequestID && kind != .multiFrame {
                #expect((try? Envelope.decode(template.frames[0])) == nil, "\(kind) decodes")
            }
            for template in templates where !kind.answeredWithoutRequestID {
                let bytes = FloodFrames.frames(template, serial: 42)[0]
                let envelope = try Envelope.decode(bytes)
                #expect(FloodFrames.kind(ofRequestID: envelope.requestID) == kind)
            }
        }
    }

    @Test("a 20,000-frame flood: every bad frame answered with an allowed error, the good client never fails, memory bounded",
          .timeLimit(.minutes(3)))
    func shortFlood() throws {
        var options = FloodOptions()
        options.frames = 20_000
        options.oversized = 5
        options.quietSeconds = 1
        let report = try Flood.runLocal(executable: try camsyncBinary(), options: options) { print("flood: \($0)") }
        print(report)
        #expect(report.coordinatorAlive)
        #expect(report.totalSent == 20_000)
        #expect(report.unanswered == 0)
        #expect(report.badFramesAnswered == 20_000)
        #expect(report.unexpectedReplies.isEmpty, "\(report.unexpectedReplies)")
        #expect(report.repliesByCode["none"] == nil)
        for kind in FloodKind.allCases where kind != .hugeReference { #expect(report.sentByKind["\(kind)", default: 0] > 0, "\(kind) not sent") }
        #expect(report.oversizedSent == 5)
        #expect(report.oversizedDisconnects == 5)
        #expect(report.oversizedReplies == 0)
        for phase in ["before", "during", "after"] {
            let summary = try #require(report.good[phase])
            #expect(summary.failed == 0, "\(phase): \(report.goodErrors)")
            #expect(summary.succeeded > 0, "\(phase)")
        }
        #expect(report.nodesAliveAfter == ["ipad-1", "ipad-2"])
        #expect(report.sequenceAfter > report.sequenceBefore)
        // Generous: 20,000 frames may fill a third of the retry window; a leak of the frames would be far more.
        #expect(report.rssAfterKB - report.rssBeforeKB < 64 * 1024)
    }
}
