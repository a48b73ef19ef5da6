import CamsyncClient
import CamsyncPolicy
import Testing
@testable import camsync

@Suite struct StatusReportTests {
    /// A small cluster built through the engine itself.
    static func state() throws -> ClusterState {
        var engine = PolicyEngine()
        let apps = [AppSpec(bundleID: "com.apple.camera", isSystemCameraApp: true),
                    AppSpec(bundleID: "com.example.call", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playAndRecord),
                    AppSpec(bundleID: "com.example.notes")]
        let device = DeviceAttributes(model: "iPad", osMajor: 15, multitaskingCameraSupported: false,
                                      cameras: [CameraSpec(name: "front", position: .front)], apps: apps)
        let call = AppID(device: "ipad-1", bundleID: "com.example.call")
        let notes = AppID(device: "ipad-1", bundleID: "com.example.notes")
        let commands: [Command] = [
            .registerNode(NodeRegistration(node: "ipad-1", attributes: .device(device))),
            .openFullScreen(call, trigger: .user),
            .configureSession(call, SessionConfiguration(camera: CameraID(host: "ipad-1", name: "front"))),
            .startSession(call),
            .split(notes, side: .right),
        ]
        for (index, command) in commands.enumerated() {
            _ = try engine.apply(command, at: Instant(milliseconds: Int64(index))).get()
        }
        return engine.state
    }

    @Test("sessions show the reason name and its AVFoundation raw value (C2, C7)")
    func sessionRows() throws {
        let report = StatusReport(state: try Self.state(), sequence: 5, term: 1, silence: ["ipad-1": 120])
        #expect(report.sessions == [["ipad-1/com.example.call", "ipad-1/front", "video:hd1080", "interrupted",
                                     "videoDeviceNotAvailableWithMultipleForegroundApps", "4", "off", "-"]])
        #expect(report.nodes == [["ipad-1", "device", "15", "yes", "120 ms ago", "-"]])
        #expect(report.layout.contains(["ipad-1", "com.example.notes", "split (secondary)", "secondary"]))
        let text = CtlStatusCommand.render(report)
        #expect(text.contains("coordinator term 1, sequence 5"))
        #expect(text.contains("videoDeviceNotAvailableWithMultipleForegroundApps  4"))
    }

    @Test("the headline names the leader's term and sequence once; the state's own line only where they differ or none leads")
    func headlineOnce() throws {
        var report = StatusReport(state: try Self.state(), sequence: 5, term: 3)
        let leader = HighAvailabilityReport.Coordinator(name: "c1", endpoint: "tcp://127.0.0.1:1", role: "leading", term: 3,
                                                        appliedSequence: 5, lag: 0, answeredInMilliseconds: 1, error: nil)
        report.highAvailability = HighAvailabilityReport(leader: "c1", coordinators: [leader], etcd: [])
        var text = CtlStatusCommand.render(report)
        #expect(text.hasPrefix("leader c1 in term 3, sequence 5\n\nNodes"), "\(text)")
        #expect(!text.contains("coordinator term"))
        report.sequence = 7
        text = CtlStatusCommand.render(report)
        #expect(text.hasPrefix("leader c1 in term 3, sequence 5\nthe state below: term 3, sequence 7\n"), "\(text)")
        report.highAvailability = HighAvailabilityReport(leader: nil, coordinators: [], etcd: [])
        text = CtlStatusCommand.render(report)
        #expect(text.hasPrefix("no coordinator answered\ncoordinator term 3, sequence 7\n"), "\(text)")
        let standby = HighAvailabilityReport.Coordinator(name: "c2", endpoint: "tcp://127.0.0.1:2", role: "standby", term: 3,
                                                         appliedSequence: 7, lag: nil, answeredInMilliseconds: 1, error: nil)
        report.highAvailability = HighAvailabilityReport(leader: nil, coordinators: [standby], etcd: [])
        text = CtlStatusCommand.render(report)
        #expect(text.hasPrefix("none of the coordinators that answered leads (c2)\n"), "\(text)")
    }

    @Test("audio sessions: category, options, active or interrupted by whom, ducked, silence hint, microphone (A1–A8)")
    func audioRows() throws {
        var engine = PolicyEngine(state: try Self.state())
        let call = AppID(device: "ipad-1", bundleID: "com.example.call")
        let notes = AppID(device: "ipad-1", bundleID: "com.example.notes")
        _ = try engine.apply(.activateAudioSession(call), at: Instant(milliseconds: 10)).get()
        _ = try engine.apply(.setAudioCategory(notes, AudioSessionConfiguration(category: .playback)), at: Instant(milliseconds: 11)).get()
        _ = try engine.apply(.activateAudioSession(notes), at: Instant(milliseconds: 12)).get()
        let report = StatusReport(state: engine.state, sequence: 8, term: 1)
        #expect(report.audio == [
            ["ipad-1", "com.example.call", "playAndRecord", "-", "interrupted by com.example.notes", "no", "yes", "-"],
            ["ipad-1", "com.example.notes", "playback", "-", "active", "no", "no", "-"],
        ])
        _ = try engine.apply(.deactivateAudioSession(notes), at: Instant(milliseconds: 13)).get()
        _ = try engine.apply(.activateAudioSession(call), at: Instant(milliseconds: 14)).get()
        let text = CtlStatusCommand.render(StatusReport(state: engine.state, sequence: 10, term: 1))
        #expect(text.contains("Audio sessions"))
        #expect(StatusReport(state: engine.state, sequence: 10, term: 1).audio.first?.last == "yes", "A7: the call holds the microphone")
    }
}
