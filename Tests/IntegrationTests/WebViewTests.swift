import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import Foundation
import Testing

/// The live web view in a real browser (headless Chromium from Debian, `make deps`) against a real
/// cluster: the page must have applied the event stream to show the story's outcome.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct WebViewTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("The page shows the camera's holder, the PiP window at its frame and a session waiting with reason 3",
          .enabled(if: chromium != nil, "headless Chromium is not installed here (`make deps` installs it)"))
    func pageFollowsTheStory() async throws {
        let http = "127.0.0.1:\(TestTopology.freeTCPPort())"
        try await withCluster(prepare: { $0.coordinatorArguments = ["--http", http] }) { cluster in
            try cluster.waitForAgreement()
            let directory = cluster.runDirectory
            try cluster.waitUntil(timeout: 10, what: "the web follower to reach the coordinator's sequence") {
                let state = try HTTPScrape.get("http://\(http)/state.json").body
                return state.contains("\"sequence\":\(try cluster.coordinatorState().sequence),")
            }
            // The page is open before the story: what it shows it learnt from the stream's changes.
            let start = try cluster.coordinatorState().sequence
            let story = UInt64(7)
            let browser = try Browser(url: "http://\(http)/?until=\(start + story)&check-layout", directory: directory)
            defer { browser.reap() }
            // The page follows the stream before the story starts: the server counts its open stream.
            try cluster.waitUntil(timeout: 60, what: "the page to open its event stream") {
                try HTTPScrape.metrics(http)["camsync_web_page_streams"] == 1
            }
            try cluster.startPiPVideoCall(activatingAudio: true, then: [.openFullScreen(Apps.camera1, trigger: .user)])
            try cluster.waitForAgreement()
            let snapshot = try cluster.coordinatorState()
            guard case .active(let screen, let frame, let stashed)? = snapshot.state.apps[Apps.call1]?.pip?.window else {
                Issue.record("the story should leave the call's PiP window active")
                return
            }
            #expect(screen == "ipad-1" && !stashed)
            #expect(snapshot.state.cameraSystems[Apps.builtIn1]?.holder == Apps.camera1)

            #expect(snapshot.sequence == start + story)
            let dom = try browser.dom(timeout: 60)
            #expect(dom.contains("data-stopped=\"true\""), "the page followed the stream to sequence \(start + story)")
            let screenshot = ProcessInfo.processInfo.environment["CAMSYNC_WEB_SCREENSHOT"] ?? "\(directory)/web-view.png"
            try Browser.screenshot("http://\(http)/?until=\(snapshot.sequence)", to: screenshot, directory: directory)

            #expect(dom.contains("data-sequence=\"\(snapshot.sequence)\""), "the page applied the stream up to the coordinator's sequence")
            let camera = try #require(Self.element(in: dom, class: "camera held", attribute: "data-id", value: "\(Apps.builtIn1)"))
            #expect(dom.range(of: camera + "[\\s\\S]*?<span class=\"holder\">ipad-1/com.apple.camera</span>",
                              options: .regularExpression) != nil, "the holder's name in ipad-1's camera box")
            let pip = try #require(Self.element(in: dom, class: "pip active", attribute: "data-app", value: Apps.call1.bundleID))
            #expect(pip.contains("data-frame=\"\(frame.x),\(frame.y),\(frame.width),\(frame.height)\""), "PiP at \(frame): \(pip)")
            let waiting = try #require(Self.element(in: dom, class: "waiting", attribute: "data-app", value: "\(Apps.call1)"))
            #expect(waiting.contains("data-reason=\"3\""))
            #expect(dom.contains("class=\"window fullScreen\" data-app=\"com.apple.camera\""), "Camera.app full screen on ipad-1")
            #expect(dom.contains("class=\"screen display\" data-id=\"display-1\""), "the attached display is drawn")
            let audio = try #require(Self.element(in: dom, class: "audio-session active", attribute: "data-app",
                                                  value: Apps.call1.bundleID), "the call's audio session is listed under ipad-1")
            #expect(audio.contains("data-category=\"playAndRecord\""), "\(audio)")
            #expect(FileManager.default.fileExists(atPath: screenshot))

            // A7: the call's active playAndRecord session holds ipad-1's microphone; ipad-2's is free.
            #expect(dom.contains("class=\"microphone held\" data-device=\"ipad-1\" data-holder=\"com.example.videocall\""), "ipad-1's microphone")
            #expect(dom.contains("class=\"microphone\" data-device=\"ipad-2\" data-holder=\"\""), "ipad-2's microphone is free")
            // Nothing is wider than a 1,280-pixel window (no horizontal scroll bar).
            #expect(dom.contains("data-viewport=\"\(Browser.viewportWidth)\""), "the layout was checked at \(Browser.viewportWidth) px")
            #expect(dom.contains("data-layout=\"fits\""),
                    "elements wider than the window: \(dom.range(of: "data-overflowing=\"[^\"]*\"", options: .regularExpression).map { String(dom[$0]) } ?? "?")")
            // The call's PiP window lies over Camera.app's full-screen window: the app's text flows around it.
            let body = try #require(dom.range(of: "<body [^>]*>", options: .regularExpression).map { String(dom[$0]) })
            #expect(body.contains("data-pip-covers=\"\""), "text under a PiP window: \(body)")

            // The history slider: the cluster before Camera.app opened, replayed from the log.
            let history = try Browser(url: "http://\(http)/?until=\(snapshot.sequence)&history=\(start + story - 1)&check-layout",
                                      directory: directory, profile: "history")
            defer { history.reap() }
            let pastDOM = try history.dom(timeout: 60)
            #expect(pastDOM.contains("data-history=\"\(start + story - 1)\""),
                    "the page shows sequence \(start + story - 1): \(pastDOM.range(of: "<span id=\"history-label\">[^<]*", options: .regularExpression).map { String(pastDOM[$0]) } ?? "?"); served: \((try? HTTPScrape.get("http://\(http)/history.json?sequence=\(start + story - 1)").body.prefix(200)) ?? "?")")
            #expect(!pastDOM.contains("class=\"window fullScreen\" data-app=\"com.apple.camera\""), "Camera.app was not open yet")
            #expect(Self.element(in: pastDOM, class: "camera held", attribute: "data-id", value: "\(Apps.builtIn1)") != nil)
            #expect(pastDOM.range(of: "<span class=\"holder\">ipad-1/com.example.videocall</span>") != nil, "the call held the camera then")
            #expect(pastDOM.contains("data-layout=\"fits\""))
            let missing = try HTTPScrape.get("http://\(http)/history.json?sequence=\(snapshot.sequence + 100)")
            #expect(missing.status == 404 && missing.body.contains("not in the history"), "\(missing.body)")
            #expect(try HTTPScrape.get("http://\(http)/history.json?sequence=x").status == 400)
        }
    }

    /// The opening tag of the element with this class and attribute value, if the DOM has one.
    static func element(in dom: String, class name: String, attribute: String, value: String) -> String? {
        let pattern = "<[a-z]+ class=\"\(NSRegularExpression.escapedPattern(for: name))\"[^>]*\(attribute)=\"\(NSRegularExpression.escapedPattern(for: value))\"[^>]*>"
        return dom.range(of: pattern, options: .regularExpression).map { String(dom[$0]) }
    }

}

/// Headless Chromium from Debian: a temporary profile, bounded time, always reaped.
final class Browser {
    let process = Process()
    let output: String
    static let options = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                          "--virtual-time-budget=3000", "--window-size=\(viewportWidth),1000"]
    /// The page must fit this width without a horizontal scroll bar (docs/OPERATIONS.md "The web view": it fits a 1,280-pixel window).
    static let viewportWidth = 1280

    /// Starts loading `url` and dumps its DOM once the page is idle (the page stops following at `?until`).
    init(url: String, directory: String, profile: String = "dom") throws {
        output = "\(directory)/chromium-\(profile).html"
        FileManager.default.createFile(atPath: output, contents: nil)
        process.executableURL = URL(fileURLWithPath: try #require(WebViewTests.chromium))
        process.arguments = Self.options + ["--user-data-dir=\(directory)/chromium-profile-\(profile)", "--dump-dom", url]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func dom(timeout: Double) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if process.isRunning { Issue.record("chromium did not finish within \(timeout) s") }
        reap()
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    func reap() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    static func screenshot(_ url: String, to path: String, directory: String) throws {
        let result = try runCommand(try #require(WebViewTests.chromium),
                                    options + ["--user-data-dir=\(directory)/chromium-profile-shot", "--screenshot=\(path)", url],
                                    timeout: 60)
        if result.status != 0 { Issue.record("chromium --screenshot: exit \(result.status)\n\(result.output.suffix(800))") }
    }
}
