import CamsyncClient
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import Foundation
import Testing

/// `camsync ctl why` and the web view's why panel against a real cluster: the rule, the sequence and
/// the command behind an app's session, the camera's holder and C6's waiters, from the replayed log.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct WhyTests {
    /// The call runs in PiP with multitasking access; Camera.app takes the camera (C4); Camera.app
    /// stops its session and the camera returns to the call (C6).
    @Test("ctl why and /why.json name the rule, the sequence and the command; the page shows them when asked")
    func whyNamesRuleSequenceAndCommand() async throws {
        let http = "127.0.0.1:\(TestTopology.freeTCPPort())"
        try await withCluster(prepare: { $0.coordinatorArguments = ["--http", http] }) { cluster in
            try cluster.waitForAgreement()
            let endpoints = ["--coordinator", cluster.commandEndpoint, "--events", cluster.eventEndpoint]
            try cluster.startPiPVideoCall(startingPiP: false)
            // A first, uncontested grant preempts nobody: C1 (one holder), not C4.
            let first = try #require(try Self.why(Apps.call1, endpoints).session)
            #expect(first.state == "running" && first.decided.rule == "C1", "\(first)")
            try cluster.act("ipad-1", [
                .startPiP(Apps.call1, trigger: .user),
                .openFullScreen(Apps.camera1, trigger: .user),
            ])
            try cluster.waitForAgreement()
            let preempted = try cluster.coordinatorState().sequence

            let call = try Self.why(Apps.call1, endpoints)
            #expect(call.sequence == preempted)
            #expect(call.logStartsAt == 0, "the whole log was replayed")
            let session = try #require(call.session)
            #expect(session.state == "interrupted videoDeviceInUseByAnotherClient (3)")
            #expect(session.decided.rule == "C4")
            #expect(session.decided.sequence == preempted)
            #expect(session.decided.command == "ipad-1 open com.apple.camera")
            #expect(session.camera?.holder == "ipad-1/com.apple.camera")
            #expect(session.camera?.waiters == ["ipad-1/com.example.videocall"])
            #expect(call.pip?.window.hasPrefix("active on ipad-1 at ") == true)
            #expect(call.pip?.decided?.rule == "P2", "the user started the call's PiP")
            #expect(call.pip?.decided?.command == "ipad-1 pip start com.example.videocall")

            try cluster.act("ipad-1", [.stopSession(Apps.camera1)])
            try cluster.waitForAgreement()
            let returned = try cluster.coordinatorState().sequence
            let back = try #require(try Self.why(Apps.call1, endpoints).session)
            #expect(back.state == "running")
            #expect(back.decided.rule == "C6")
            #expect(back.decided.command == "ipad-1 session stop com.apple.camera")
            #expect(back.decided.sequence == returned)
            #expect(back.camera?.holder == "ipad-1/com.example.videocall" && back.camera?.waiters == [])

            // The text form says the same in a line a person reads.
            let text = try runCamsync(["ctl", "why"] + endpoints + ["ipad-1/com.example.videocall"])
            #expect(text.contains("camera session: running"), "\(text)")
            #expect(text.contains("rule C6, sequence \(returned): ipad-1 session stop com.apple.camera"), "\(text)")

            // Bad input is an answer with a reason, not a crash.
            let unknown = try runCommand(camsyncBinary(), ["ctl", "why"] + endpoints + ["ipad-1/com.example.nope"], timeout: 30)
            #expect(unknown.status == 1 && unknown.output.contains("no app ipad-1/com.example.nope"), "\(unknown.output)")
            let malformed = try runCommand(camsyncBinary(), ["ctl", "why"] + endpoints + ["videocall"], timeout: 30)
            #expect(malformed.status != 0 && malformed.output.contains("NODE/BUNDLE-ID"), "\(malformed.output)")

            // The web view's follower keeps the same decisions as it applies the stream.
            try cluster.waitUntil(timeout: 10, what: "the web follower to reach sequence \(returned)") {
                try HTTPScrape.get("http://\(http)/state.json").body.contains("\"sequence\":\(returned),")
            }
            let served = try HTTPScrape.get("http://\(http)/why.json?app=ipad-1/com.example.videocall")
            #expect(served.status == 200)
            let web = try JSONDecoder().decode(WhyReport.self, from: Data(served.body.utf8))
            #expect(web.session?.decided == back.decided)
            #expect(web.session?.camera == back.camera)
            let missing = try HTTPScrape.get("http://\(http)/why.json?app=ipad-1")
            #expect(missing.status == 400 && missing.body.contains("NODE/BUNDLE-ID"), "\(missing.body)")
            #expect(try HTTPScrape.get("http://\(http)/why.json?app=ipad-9/com.nope").status == 404)

            // The page's why panel, opened as a click would open it.
            guard WebViewTests.chromium != nil else { return }
            let browser = try Browser(url: "http://\(http)/?until=\(returned)&why=ipad-1/com.example.videocall",
                                      directory: cluster.runDirectory)
            defer { browser.reap() }
            let dom = try browser.dom(timeout: 60)
            #expect(dom.contains("id=\"why\" data-app=\"ipad-1/com.example.videocall\""), "the why panel is open for the call")
            #expect(dom.range(of: "class=\"why-session\" data-state=\"running\"[\\s\\S]*?data-rule=\"C6\"", options: .regularExpression) != nil,
                    "the panel names C6 for the call's session")
            #expect(dom.contains("#\(returned) ipad-1 session stop com.apple.camera"))
        }
    }

    static func why(_ app: AppID, _ endpoints: [String]) throws -> WhyReport {
        let output = try runCamsync(["ctl", "why"] + endpoints + ["\(app)", "--json"])
        return try JSONDecoder().decode(WhyReport.self, from: Data(output.utf8))
    }
}
