import CamsyncBench
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import Foundation
import Testing
import ZeroMQ

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
            // The page shows one device at a time: ipad-1 (the first listed) above; ipad-2 when selected.
            #expect(dom.contains("data-device=\"ipad-1\""), "ipad-1 is shown by default")
            let other = try Browser(url: "http://\(http)/?until=\(snapshot.sequence)#device=ipad-2", directory: directory, profile: "ipad-2")
            defer { other.reap() }
            let otherDOM = try other.dom(timeout: 60)
            #expect(otherDOM.contains("class=\"microphone\" data-device=\"ipad-2\" data-holder=\"\""), "ipad-2's microphone is free")
            try Self.expectDetailsMatchTheWholeView(http, devices: ["ipad-1", "ipad-2", "display-1"])
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

    /// Simulated devices registered through one DEALER (as `camsync bench` does), each with a display.
    /// `CAMSYNC_WEB_FLEET=5000 CAMSYNC_WEB_MEASURE=1` measures the page's load at 10,000 nodes
    /// (docs/PERFORMANCE.md "Measured apart from the bench"); the test asserts no times.
    static let fleet = Int(ProcessInfo.processInfo.environment["CAMSYNC_WEB_FLEET"] ?? "") ?? 2_000
    /// Devices whose first app holds their camera.
    static let claiming = 10

    @Test("At fleet size the page shows the totals, finds a device, shows the one selected and draws a bounded list",
          .enabled(if: chromium != nil, "headless Chromium is not installed here (`make deps` installs it)"))
    func pageAtFleetSize() async throws {
        let http = "127.0.0.1:\(TestTopology.freeTCPPort())"
        // The simulated nodes send no heartbeats: a long liveness keeps them alive for the test.
        try await withCluster(liveness: 100_000, prepare: { $0.coordinatorArguments = ["--http", http] }) { cluster in
            try cluster.waitForAgreement()
            let directory = cluster.runDirectory
            var last = try Self.registerFleet(at: cluster.commandEndpoint)
            try cluster.waitUntil(timeout: 120, what: "the web follower to apply the fleet's registrations") {
                (try HTTPScrape.metrics(http)["camsync_web_follower_sequence"] ?? 0) >= Double(last)
            }
            if ProcessInfo.processInfo.environment["CAMSYNC_WEB_MEASURE"] != nil { try Self.measureLoad(http: http, directory: directory) }
            // One display leaves its device (it gets a row of its own) and one device leaves the cluster
            // (listed dead; its display detaches).
            let detached = SimulatedNode.id(Self.claiming + 1) + "-display", gone = SimulatedNode.id(Self.claiming + 3)
            last = try Self.send([(.detachDisplay(display: NodeID(detached)), detached), (.unregisterNode(NodeID(gone)), gone)], to: cluster.commandEndpoint)
            try cluster.waitUntil(timeout: 60, what: "the web follower to apply the detach and the departure") {
                (try HTTPScrape.metrics(http)["camsync_web_follower_sequence"] ?? 0) >= Double(last)
            }
            try Self.expectDetailsMatchTheWholeView(http, devices: [SimulatedNode.id(Self.claiming + 1), detached, gone, SimulatedNode.id(4)])
            let sequence = try cluster.coordinatorState().sequence
            let state = try cluster.coordinatorState().state
            let devices = Self.fleet + 2, displays = Self.fleet + 1

            // The stream starts with the totals and the index, no device's screens.
            let stream = try runCommand("/usr/bin/curl", ["-sN", "--max-time", "3", "http://\(http)/events"],
                                        includeStandardError: false, timeout: 15).output
            #expect(stream.hasPrefix("event: whole\n"), "\(stream.prefix(200))")
            #expect(stream.contains("\"id\":\"\(SimulatedNode.id(Self.fleet - 1))\""), "the index lists every device")
            #expect(!stream.contains("\"screens\"") && !stream.contains("\"windows\""), "no device's detail in the stream")
            // One device's detail, on demand.
            let one = try HTTPScrape.get("http://\(http)/device.json?id=\(SimulatedNode.id(7))-display")
            #expect(one.status == 200 && one.body.contains("\"id\":\"\(SimulatedNode.id(7))\""), "a display gives its device's: \(one.body.prefix(200))")
            #expect(try HTTPScrape.get("http://\(http)/device.json?id=nobody").status == 404)
            #expect(try HTTPScrape.get("http://\(http)/device.json").status == 400)

            try Self.expectDetailsMatchTheWholeView(http, devices: ["ipad-1", SimulatedNode.id(0), SimulatedNode.id(42), SimulatedNode.id(Self.fleet - 1)])

            // The totals, and a search that finds one device.
            let found = try Browser(url: "http://\(http)/?until=\(sequence)&check-layout#search=\(SimulatedNode.id(42))",
                                    directory: directory, profile: "search")
            defer { found.reap() }
            let foundDOM = try found.dom(timeout: 90)
            for (total, value) in [("devices", devices), ("displays", displays), ("attachedDisplays", displays - 2), ("alive", devices + displays - 1),
                                   ("dead", 1), ("sessionsRunning", Self.claiming), ("camerasHeld", Self.claiming)] {
                #expect(foundDOM.contains("data-total=\"\(total)\" data-value=\"\(value)\""), "total \(total) = \(value)")
            }
            #expect(foundDOM.contains("data-matches=\"1\" data-shown=\"1\""), "one row matches \(SimulatedNode.id(42))")
            #expect(foundDOM.contains("class=\"device-row\" data-id=\"\(SimulatedNode.id(42))\""), "the row found")
            #expect(foundDOM.contains("data-layout=\"fits\""), "the page fits \(Browser.viewportWidth) px")
            let index = try runCommand("/usr/bin/curl", ["-sN", "--max-time", "3", "http://\(http)/events"], includeStandardError: false, timeout: 15).output
            #expect(index.contains("{\"alive\":true,\"id\":\"\(detached)\",\"kind\":\"display\",\"status\":\"detached\"}"), "the detached display's row")
            #expect(index.contains("{\"alive\":false,\"id\":\"\(gone)\",\"kind\":\"device\",\"status\":\"dead\"}"), "the departed device's row")
            #expect(index.contains("{\"alive\":true,\"id\":\"\(gone)-display\",\"kind\":\"display\",\"status\":\"detached\"}"), "its display, detached")
            #expect(index.contains("{\"alive\":true,\"id\":\"\(SimulatedNode.id(Self.claiming + 1))\",\"kind\":\"device\",\"status\":\"idle\"}"), "its device has no display now")

            // A device selected by URL: its screen, its display, its app's window and the camera it holds.
            let device = SimulatedNode.id(7)
            let system = try #require(state.cameraSystems.values.first { $0.id.host == NodeID(device) && $0.holder != nil })
            let shown = try Browser(url: "http://\(http)/?until=\(sequence)&check-layout#device=\(device)", directory: directory, profile: "device")
            defer { shown.reap() }
            let shownDOM = try shown.dom(timeout: 90)
            #expect(shownDOM.contains("data-device=\"\(device)\""))
            #expect(shownDOM.contains("class=\"screen device\" data-id=\"\(device)\""), "the device's screen")
            #expect(shownDOM.contains("class=\"screen display\" data-id=\"\(device)-display\""), "its display")
            #expect(shownDOM.contains("class=\"window fullScreen\" data-app=\"com.bench.app0\" data-device=\"\(device)\""), "its app full screen")
            let camera = try #require(Self.element(in: shownDOM, class: "camera held", attribute: "data-id", value: "\(system.id)"))
            #expect(shownDOM.range(of: NSRegularExpression.escapedPattern(for: camera) + "[\\s\\S]*?<span class=\"holder\">\(device)/com.bench.app0</span>",
                                   options: .regularExpression) != nil, "the holder in \(device)'s camera box")
            #expect(Self.count("class=\"screen ", in: shownDOM) == 2, "only the selected device's screens are drawn")
            #expect(shownDOM.contains("data-layout=\"fits\""))

            // A search that matches the whole fleet draws a bounded list.
            let many = try Browser(url: "http://\(http)/?until=\(sequence)#search=sim-", directory: directory, profile: "many")
            defer { many.reap() }
            let manyDOM = try many.dom(timeout: 90)
            #expect(manyDOM.contains("data-matches=\"\(Self.fleet + 2)\" data-shown=\"100\""), "every simulated device and the two detached displays match, 100 drawn")
            #expect(Self.count("class=\"device-row\"", in: manyDOM) == 100, "the list is capped")
        }
    }

    /// Registers `fleet` simulated devices, a display attached to each, and makes the first `claiming`
    /// hold their camera, pipelined through one DEALER. Returns the last acknowledged sequence.
    static func registerFleet(at endpoint: String) throws -> UInt64 {
        // Devices, then their displays, then the claims: the coordinator admits a bounded number of
        // registrations a turn and the rest are sent again later, so one pipeline of all three could
        // register a display before its device (it would wait unattached).
        let devices = (0..<fleet).map { i -> (Command, String) in
            let id = SimulatedNode.id(i)
            return (.registerNode(SimulatedNode.registration(id, apps: 2)), id)
        }
        let displays = (0..<fleet).map { i -> (Command, String) in
            let id = SimulatedNode.id(i)
            let display = NodeRegistration(node: NodeID(id + "-display"),
                                           attributes: .display(DisplayAttributes(name: "Studio Display", attachedTo: NodeID(id))))
            return (.registerNode(display), id + "-display")
        }
        let claims = (0..<claiming).flatMap { i in SimulatedNode.claim(SimulatedNode.id(i)).map { ($0, SimulatedNode.id(i)) } }
        _ = try send(devices, to: endpoint)
        _ = try send(displays, to: endpoint)
        return try send(claims, to: endpoint)
    }

    /// Sends `requests` (command, sender) through one DEALER; returns the last acknowledged sequence.
    static func send(_ requests: [(Command, String)], to endpoint: String) throws -> UInt64 {
        let context = try ZMQContext()
        let dealer = try ProtocolDealer(context: context, endpoint: endpoint)
        defer { dealer.close() }
        return try dealer.pipeline(requests)
    }

    /// Prints what the page costs to load: the bytes served, and chromium's `--dump-dom` wall time for
    /// the page (until its list, totals and first device are drawn) against `about:blank`'s, medians of 5.
    static func measureLoad(http: String, directory: String) throws {
        let chromium = try #require(chromium)
        func curl(_ path: String, _ extra: [String] = []) throws -> String {
            try runCommand("/usr/bin/curl", ["-sN", "-o", "/dev/null", "-w", "%{size_download} B in %{time_total} s"] + extra
                           + ["http://\(http)\(path)"], includeStandardError: false, timeout: 30).output
        }
        print("web load: /events first 2 s: \(try curl("/events", ["--max-time", "2"])); /device.json: \(try curl("/device.json?id=\(SimulatedNode.id(7))")); "
              + "/state.json: \(try curl("/state.json")); / : \(try curl("/"))")
        func dumpDOM(_ url: String, _ run: Int) throws -> Double {
            let start = Date()
            let result = try runCommand(chromium, Browser.options + ["--user-data-dir=\(directory)/chromium-profile-measure-\(run)", "--dump-dom", url],
                                        includeStandardError: false, timeout: 120)
            let seconds = Date().timeIntervalSince(start)
            if !url.hasPrefix("about:") && !result.output.contains("data-stopped=\"true\"") { Issue.record("the page did not load: \(result.output.prefix(300))") }
            return seconds
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let blank = median(try (0..<5).map { try dumpDOM("about:blank", $0) })
        let page = median(try (0..<5).map { try dumpDOM("http://\(http)/?until=1", 10 + $0) })
        print("web load: chromium --dump-dom median of 5: page \(Int(page * 1000)) ms, about:blank \(Int(blank * 1000)) ms, "
              + "difference \(Int((page - blank) * 1000)) ms")
        // The page's own figure through the Performance API, when Node is here (tools/web-load.mjs).
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/web-load.mjs").path
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/node") {
            let result = try runCommand("/usr/bin/node", ["--experimental-websocket", script, "http://\(http)/", "5"],
                                        includeStandardError: false, timeout: 300)
            print("web load: tools/web-load.mjs:\n\(result.output)")
        }
    }

    /// What the follower kept per node (`/device.json`, rebuilt only where batches touched) is what a
    /// whole view built afresh from its replica says (`/state.json`), for each of `devices`' groups.
    static func expectDetailsMatchTheWholeView(_ http: String, devices: [String]) throws {
        func object(_ path: String) throws -> [String: Any] {
            let body = try HTTPScrape.get("http://\(http)\(path)").body
            return try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(path): \(body.prefix(200))")
        }
        let whole = try #require(try object("/state.json")["view"] as? [String: Any])
        let screens = try #require(whole["screens"] as? [[String: Any]])
        let cameras = try #require(whole["cameras"] as? [[String: Any]])
        for device in devices {
            let detail = try object("/device.json?id=\(device)")
            #expect(detail["sequence"] as? Int == whole["sequence"] as? Int, "no batch between the two answers")
            let byID = { (a: [String: Any], b: [String: Any]) in (a["id"] as? String ?? "") < (b["id"] as? String ?? "") }
            let shown = try #require(detail["screens"] as? [[String: Any]]).sorted(by: byID)
            let group = Set(shown.compactMap { $0["id"] as? String })
            #expect(group.contains(device), "\(device)'s detail shows it")
            let expected = screens.filter { group.contains($0["id"] as? String ?? "") }
            #expect(NSArray(array: shown).isEqual(to: expected), "\(device)'s screens: \(shown) against \(expected)")
            let expectedCameras = cameras.filter { group.contains($0["host"] as? String ?? "") }
            #expect(NSArray(array: try #require(detail["cameras"] as? [[String: Any]]).sorted(by: byID)).isEqual(to: expectedCameras),
                    "\(device)'s camera systems")
        }
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

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
