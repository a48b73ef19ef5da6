import Testing
@testable import CamsyncPolicy

/// Rejections carry a code and a reason, and leave state unchanged (checked by `Harness.reject`).
@Suite struct RejectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var command: Command
        var code: Rejection.Code
        var testDescription: String { name }
    }

    static let ipad: NodeID = "ipad"
    static let notes = AppID.on(ipad, Apps.notes)
    static let video = AppID.on(ipad, Apps.video)

    /// A device with notes full screen and video in a split pair with it.
    static func prepared() -> Harness {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, os: 17)))
        h.ok(.registerNode(deviceRegistration("old", os: 15)))
        h.ok(.registerNode(displayRegistration("tv")))
        h.ok(.openFullScreen(notes, trigger: .user))
        h.ok(.openFullScreen(.on("old", Apps.notes), trigger: .user))
        return h
    }

    @Test(arguments: [
        Case(name: "L4 split a requiresFullScreen app", command: .split(.on(ipad, Apps.fullOnly), side: .right), code: .requiresFullScreen),
        Case(name: "C3 enable multitasking access on OS 15",
             command: .configureSession(.on("old", Apps.notes), SessionConfiguration(camera: front("old"), multitaskingCameraAccessEnabled: true)),
             code: .multitaskingCameraAccessUnsupported),
        Case(name: "C9 cost above 1.0",
             command: .configureSession(notes, SessionConfiguration(camera: front(ipad), resolution: .uhd4K, frameRate: 60)),
             code: .hardwareCostExceeded),
        Case(name: "C10 another device's camera", command: .configureSession(notes, SessionConfiguration(camera: front("old"))),
             code: .cameraNotUsable),
        Case(name: "C10 detached display camera",
             command: .configureSession(notes, SessionConfiguration(camera: CameraID(host: "tv", name: "cam"))), code: .cameraNotUsable),
        Case(name: "unknown camera", command: .configureSession(notes, SessionConfiguration(camera: CameraID(host: ipad, name: "x"))),
             code: .unknownCamera),
        Case(name: "unknown app", command: .openFullScreen(AppID(device: ipad, bundleID: "nope"), trigger: .user), code: .unknownApp),
        Case(name: "unknown node", command: .goHome(device: "nope"), code: .unknownNode),
        Case(name: "unknown node of app", command: .startSession(AppID(device: "nope", bundleID: "x")), code: .unknownNode),
        Case(name: "wrong node kind", command: .attachDisplay(display: ipad, device: "tv"), code: .wrongNodeKind),
        Case(name: "start without a session", command: .startSession(notes), code: .noSession),
        Case(name: "P2 programmatic start", command: .startPiP(notes, trigger: .programmatic), code: .noPiPController),
        Case(name: "P5 stash without window", command: .stashPiP(notes), code: .pipNotActive),
        Case(name: "install twice", command: .installApp(device: ipad, Apps.notes), code: .alreadyExists),
        Case(name: "S1 unknown camera system", command: .setPressure(builtIn("nope"), .fair), code: .unknownCamera),
        Case(name: "split with nothing", command: .split(video, side: .left), code: .illegalState),
        Case(name: "R1 record without running session", command: .startRecording(notes, .movieFile), code: .noSession),
        Case(name: "L3 stage window with Stage Manager off",
             command: .stageOpen(notes, StageWindow(screen: ipad, frame: Frame(x: 0, y: 0, width: 1, height: 1))), code: .stageManagerOff),
        Case(name: "P6 complete without restore", command: .completePiPRestore(notes), code: .illegalState),
    ])
    func rejectionsCarryReasons(_ c: Case) {
        var h = Self.prepared()
        if c.name == "split with nothing" { h.ok(.goHome(device: Self.ipad)) }
        let rejection = h.reject(c.command)
        #expect(rejection?.code == c.code)
        #expect(rejection?.message.isEmpty == false)
    }

    @Test func p2_programmaticStartWithController() {
        var h = Self.prepared()
        h.ok(.openFullScreen(Self.video, trigger: .user))
        h.ok(.setupPiP(Self.video, PiPControllerSetup(kind: .playback)))
        #expect(h.reject(.startPiP(Self.video, trigger: .programmatic))?.code == .pipProgrammaticStart)
    }
}
