import Testing
@testable import CamsyncPolicy

/// Capture graphs from seed 002 (WWDC22 110429): C11–C14.
@Suite struct CaptureGraphTests {
    let ipad: NodeID = "ipad"
    var app: AppID { .on(ipad, Apps.scanner) }
    var notes: AppID { .on(ipad, Apps.notes) }

    func camera(_ name: String) -> CameraID { CameraID(host: ipad, name: name) }

    /// A device with the back cameras of seed 002; the LiDAR Depth Camera only where `lidar`.
    func registration(os: Int = 17, model: String = "iPad Pro (12.9-inch, 6th generation)",
                      multiCam: Bool? = nil, lidar: Bool? = nil) -> NodeRegistration {
        let capabilities = DeviceModelCatalog.capabilities(of: model)
        var cameras = [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back),
                       CameraSpec(name: "telephoto", position: .telephoto), CameraSpec(name: "ultra-wide", position: .ultraWide)]
        if lidar ?? capabilities.lidarDepthCameraSupported { cameras.append(CameraSpec(name: "lidar", position: .lidarDepth)) }
        return NodeRegistration(node: ipad, attributes: .device(DeviceAttributes(
            model: model, osMajor: os, cameras: cameras, apps: Apps.all,
            isMultiCamSupported: multiCam, lidarDepthCameraSupported: lidar)))
    }

    func harness(os: Int = 17, model: String = "iPad Pro (12.9-inch, 6th generation)") -> Harness {
        var h = Harness()
        h.ok(.registerNode(registration(os: os, model: model)))
        h.ok(.openFullScreen(app, trigger: .user))
        return h
    }

    // MARK: C11

    struct GraphCase: CustomTestStringConvertible, Sendable {
        var name: String
        var os: Int
        var configuration: SessionConfiguration
        /// nil: accepted.
        var refused: Rejection.Code?
        var testDescription: String { name }
    }

    static let back = CameraID(host: "ipad", name: "back")

    /// C11 — seed 002 "New in iOS 16 and iPadOS 16, apps can use multiple AVCaptureVideoDataOutputs at the same time".
    @Test(arguments: [
        GraphCase(name: "one video data output on OS 15", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData]), refused: nil),
        GraphCase(name: "two video data outputs on OS 15 → refused", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData]), refused: .captureGraphUnsupported),
        GraphCase(name: "two video data outputs on OS 16", os: 16,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData]), refused: nil),
        GraphCase(name: "4K and 720p video data outputs on OS 16", os: 16,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData], resolution: .uhd4K,
                                                      videoDataResolutions: [.uhd4K, .hd720]), refused: nil),
        GraphCase(name: "4K and 720p video data outputs on OS 15 → refused", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData], resolution: .uhd4K,
                                                      videoDataResolutions: [.uhd4K, .hd720]), refused: .captureGraphUnsupported),
        GraphCase(name: "one resolution for two video data outputs → invalid", os: 17,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData], videoDataResolutions: [.hd720]),
                  refused: .invalidArgument),
        GraphCase(name: "a 4K video data output from a 1080p format → invalid", os: 17,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData], resolution: .hd1080,
                                                      videoDataResolutions: [.uhd4K, .hd720]), refused: .invalidArgument),
    ])
    func c11_severalVideoDataOutputs(_ c: GraphCase) {
        var h = harness(os: c.os)
        check(&h, c)
    }

    // MARK: C12

    /// C12 — seed 002 "starting in iOS 16 and iPadOS 16, apps can record with AVCaptureMovieFileOutput while
    /// receiving data from AVCaptureVideoDataOutput and AVCaptureAudioDataOutput".
    @Test(arguments: [
        GraphCase(name: "movie file alone on OS 15", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.movieFile]), refused: nil),
        GraphCase(name: "video and audio data without a movie file on OS 15", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .audioData], audioInput: true), refused: nil),
        GraphCase(name: "movie file + video data on OS 15 → refused", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .movieFile]), refused: .captureGraphUnsupported),
        GraphCase(name: "movie file + audio data on OS 15 → refused", os: 15,
                  configuration: SessionConfiguration(camera: back, outputs: [.movieFile, .audioData], audioInput: true),
                  refused: .captureGraphUnsupported),
        GraphCase(name: "movie file + video data on OS 16", os: 16,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .movieFile]), refused: nil),
        GraphCase(name: "movie file + video + audio data on OS 16", os: 16,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .movieFile, .audioData], audioInput: true),
                  refused: nil),
        GraphCase(name: "audio data without the microphone → invalid", os: 16,
                  configuration: SessionConfiguration(camera: back, outputs: [.videoData, .audioData]), refused: .invalidArgument),
    ])
    func c12_movieFileWithDataOutputs(_ c: GraphCase) {
        var h = harness(os: c.os)
        check(&h, c)
    }

    struct CostCase: CustomTestStringConvertible, Sendable {
        var name: String
        var configuration: SessionConfiguration
        var milli: Int
        var testDescription: String { name }
    }

    static let tele = CameraID(host: "ipad", name: "telephoto")
    static let ultraWide = CameraID(host: "ipad", name: "ultra-wide")

    static let costCases: [CostCase] = [
        CostCase(name: "one video data output at 1080p30", configuration: SessionConfiguration(camera: back), milli: 400),
        CostCase(name: "two video data outputs: +0.020 output, +0.100 stream",
                 configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData]), milli: 400 + 20 + 100),
        CostCase(name: "4K + 720p video data and a movie file",
                 configuration: SessionConfiguration(camera: back, outputs: [.videoData, .videoData, .movieFile], resolution: .uhd4K,
                                                     videoDataResolutions: [.uhd4K, .hd720]), milli: 700 + 40 + 62),
        CostCase(name: "movie file with video and audio data",
                 configuration: SessionConfiguration(camera: back, outputs: [.videoData, .movieFile, .audioData], audioInput: true),
                 milli: 400 + 40),
        CostCase(name: "MultiCam: two cameras at 1080p30",
                 configuration: SessionConfiguration(camera: back, additionalCameras: [tele]), milli: 800),
        CostCase(name: "MultiCam: three cameras at 720p30",
                 configuration: SessionConfiguration(camera: back, resolution: .hd720, additionalCameras: [tele, ultraWide]), milli: 750),
    ]

    /// C9 with C11, C12, C14: the modelled cost counts every output, every video data output's own
    /// stream and every camera.
    @Test(arguments: costCases)
    func c9_costCountsEveryOutputAndCamera(_ c: CostCase) {
        #expect(HardwareCostModel.costMilli(of: c.configuration) == c.milli)
    }

    /// C12: a graph whose outputs push the cost over 1.0 is refused by C9.
    @Test func c12_costOfEveryOutputCanExceedTheLimit() {
        var h = harness(os: 17)
        let heavy = SessionConfiguration(camera: camera("back"), outputs: [.videoData, .videoData, .movieFile, .audioData, .photo],
                                         resolution: .uhd4K, proRAW: true, audioInput: true, videoDataResolutions: [.uhd4K, .uhd4K])
        let rejection = h.reject(.configureSession(app, heavy))
        #expect(rejection?.code == .hardwareCostExceeded)
        #expect(rejection?.message.contains("C9") == true)
    }

    // MARK: C13

    /// C13 — seed 002 "ARKit does not support using the camera while multitasking": enabling is refused
    /// even where the app could otherwise have access (OS 16 and later, deployment target 16).
    @Test(arguments: [15, 16, 17])
    func c13_enablingMultitaskingAccessForARKitIsRefused(_ os: Int) {
        var h = harness(os: os)
        let rejection = h.reject(.configureSession(app, SessionConfiguration(
            camera: camera("back"), multitaskingCameraAccessEnabled: true, runByARKit: true)))
        #expect(rejection?.code == .multitaskingCameraAccessUnsupported)
        #expect(rejection?.message.contains("C13") == true)
        let events = h.ok(.configureSession(app, SessionConfiguration(camera: camera("back"), runByARKit: true)))
        #expect(events.contains(.sessionConfigured(app, hardwareCost: 0.4, multitaskingCameraAccessSupported: false)))
    }

    /// C13 with C2.4: an ARKit session is interrupted with reason 4 whenever its device multitasks, on
    /// every OS; the same app without ARKit keeps running on OS 16 and later.
    @Test(arguments: [(15, true), (16, true), (17, true), (16, false), (17, false)])
    func c13_arKitSessionIsInterruptedWhileMultitasking(_ os: Int, _ arKit: Bool) {
        var h = harness(os: os)
        let access = !arKit && os >= 16
        h.ok(.configureSession(app, SessionConfiguration(camera: camera("back"), multitaskingCameraAccessEnabled: access,
                                                         runByARKit: arKit)))
        h.ok(.startSession(app))
        #expect(h.session(app) == .running)
        h.ok(.split(notes, side: .right))
        #expect(h.session(app) == (access ? .running : .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps)))
        h.ok(.sendToBackground(notes, cause: .homeGesture))
        #expect(h.session(app) == .running)
    }

    /// C13: even Camera.app, which always has multitasking access [policy], loses it when ARKit runs its session.
    @Test func c13_arKitOverridesTheSystemCameraPolicy() {
        var h = harness(os: 17)
        let camera = AppID.on(ipad, Apps.camera)
        h.ok(.openFullScreen(camera, trigger: .user))
        h.ok(.configureSession(camera, SessionConfiguration(camera: self.camera("back"), runByARKit: true)))
        #expect(h.state.multitaskingCameraAccessEffective(app: camera) == false)
        h.ok(.configureSession(camera, SessionConfiguration(camera: self.camera("back"))))
        #expect(h.state.multitaskingCameraAccessEffective(app: camera) == true)
    }

    // MARK: C14

    struct MultiCamCase: CustomTestStringConvertible, Sendable {
        var name: String
        var model: String
        var cameras: [String]
        var resolution: CaptureResolution = .hd1080
        var refused: Rejection.Code?
        var testDescription: String { name }
    }

    static let pro6 = "iPad Pro (12.9-inch, 6th generation)"
    static let pro2020 = "iPad Pro (12.9-inch, 4th generation)"
    static let air = "iPad Air (4th generation)"

    /// C14 — seed 002 "Because the LiDAR Depth Camera uses the rear-facing wide-angle camera, the Telephoto and
    /// Ultra Wide cameras can be used in addition with an AVCaptureMultiCamSession".
    @Test(arguments: [
        MultiCamCase(name: "front + back on a MultiCam model", model: pro6, cameras: ["front", "back"]),
        MultiCamCase(name: "LiDAR + telephoto + ultra wide at 720p", model: pro6, cameras: ["lidar", "telephoto", "ultra-wide"],
                     resolution: .hd720),
        MultiCamCase(name: "LiDAR + back wide → refused", model: pro6, cameras: ["lidar", "back"], refused: .multiCamUnsupported),
        MultiCamCase(name: "back + LiDAR → refused", model: pro6, cameras: ["back", "telephoto", "lidar"], resolution: .vga,
                     refused: .multiCamUnsupported),
        MultiCamCase(name: "a camera twice → invalid", model: pro6, cameras: ["back", "back"], refused: .invalidArgument),
        MultiCamCase(name: "three cameras at 1080p cost 1.2 → C9", model: pro6, cameras: ["back", "telephoto", "ultra-wide"],
                     refused: .hardwareCostExceeded),
        MultiCamCase(name: "MultiCam on a 2020 iPad Pro", model: pro2020, cameras: ["back", "telephoto"]),
        MultiCamCase(name: "MultiCam on an iPad Air → refused", model: air, cameras: ["back", "telephoto"], refused: .multiCamUnsupported),
        MultiCamCase(name: "one camera on an iPad Air", model: air, cameras: ["back"]),
    ])
    func c14_multiCamSessions(_ c: MultiCamCase) {
        var h = harness(os: 17, model: c.model)
        let cameras = c.cameras.map(camera)
        let configuration = SessionConfiguration(camera: cameras[0], resolution: c.resolution, additionalCameras: Array(cameras.dropFirst()))
        check(&h, GraphCase(name: c.name, os: 17, configuration: configuration, refused: c.refused))
        if c.refused == nil {
            h.ok(.startSession(app))
            #expect(h.session(app) == .running)
            #expect(h.state.holder(of: builtIn(ipad)) == app)
        }
    }

    /// C14: a display's camera is a camera system of its own, never part of a device's MultiCam session.
    @Test func c14_displayCameraIsNotPartOfAMultiCamSession() {
        var h = harness(os: 17)
        h.ok(.registerNode(displayRegistration("display", attachedTo: ipad)))
        let rejection = h.reject(.configureSession(app, SessionConfiguration(
            camera: camera("back"), additionalCameras: [CameraID(host: "display", name: "cam")])))
        #expect(rejection?.code == .multiCamUnsupported)
        #expect(rejection?.message.contains("C14") == true)
    }

    /// C14 with C1, C4: the MultiCam session's app holds the whole system; another visible app that starts a
    /// session on a camera it does not use still takes the system, and the MultiCam session waits with reason 3.
    @Test func c14_multiCamSessionHoldsTheWholeSystem() {
        var h = harness(os: 17)
        h.ok(.configureSession(app, SessionConfiguration(camera: camera("front"), multitaskingCameraAccessEnabled: true,
                                                         additionalCameras: [camera("back")])))
        h.ok(.startSession(app))
        #expect(h.state.holder(of: builtIn(ipad)) == app)
        let call = AppID.on(ipad, Apps.call)
        h.ok(.split(call, side: .right))
        h.ok(.configureSession(call, SessionConfiguration(camera: camera("telephoto"), multitaskingCameraAccessEnabled: true)))
        let events = h.ok(.startSession(call))
        #expect(grants(events).map(\.1) == [call])
        #expect(h.state.holder(of: builtIn(ipad)) == call)
        #expect(h.session(app) == .interrupted(.videoDeviceInUseByAnotherClient))
        // C6: it returns to the MultiCam session when the call stops.
        h.ok(.stopSession(call))
        #expect(h.state.holder(of: builtIn(ipad)) == app)
        #expect(h.session(app) == .running)
    }

    /// C14 [policy: model list]: only LiDAR models may declare the LiDAR Depth Camera.
    @Test(arguments: [(pro6, true), (pro2020, false), (air, false), ("iPad Pro (11-inch) (M4)", true)])
    func c14_lidarDepthCameraOnlyOnLiDARModels(_ model: String, _ accepted: Bool) {
        var h = Harness()
        let registration = registration(model: model, lidar: nil)
        var withLiDAR = registration
        if case .device(var device) = registration.attributes, !device.cameras.contains(where: { $0.position == .lidarDepth }) {
            device.cameras.append(CameraSpec(name: "lidar", position: .lidarDepth))
            withLiDAR.attributes = .device(device)
        }
        if accepted {
            h.ok(.registerNode(withLiDAR))
        } else {
            let rejection = h.reject(.registerNode(withLiDAR))
            #expect(rejection?.code == .invalidArgument)
            #expect(rejection?.message.contains("C14") == true)
        }
    }

    /// C14: the model list gives the defaults; a registration may state both attributes itself.
    @Test(arguments: [
        (pro6, true, true), (pro2020, true, false), ("iPad Pro (11-inch)", true, false), (air, false, false), ("iPad", false, false),
    ])
    func c14_modelCatalog(_ model: String, _ multiCam: Bool, _ lidar: Bool) {
        let attributes = DeviceAttributes(model: model, osMajor: 17)
        #expect(attributes.isMultiCamSupported == multiCam)
        #expect(attributes.lidarDepthCameraSupported == lidar)
        let stated = DeviceAttributes(model: model, osMajor: 17, isMultiCamSupported: !multiCam, lidarDepthCameraSupported: !lidar)
        #expect(stated.isMultiCamSupported == !multiCam)
        #expect(stated.lidarDepthCameraSupported == !lidar)
    }

    /// K2 with C11, C12 [policy]: an alive device that re-registers on an older OS keeps no session it could
    /// no longer run (found by the seeded fuzzer: the invariant checker caught the stale graph).
    @Test(arguments: [(16, true), (15, false)])
    func k2_reRegistrationDropsGraphsTheDeviceCannotRun(_ os: Int, _ kept: Bool) {
        var h = harness(os: 17)
        h.ok(.configureSession(app, SessionConfiguration(camera: camera("back"), outputs: [.videoData, .movieFile])))
        h.ok(.startSession(app))
        let events = h.ok(.registerNode(registration(os: os)))
        #expect((h.state.apps[app]?.session != nil) == kept)
        #expect(events.contains(.sessionStopped(app)) == !kept)
        #expect(h.state.holder(of: builtIn(ipad)) == (kept ? app : nil))
    }

    // MARK: Invariants

    /// The invariant checker bites on a session its device could not run and on an ARKit session
    /// reporting multitasking access as supported.
    @Test func invariantsCatchImpossibleCaptureGraphs() {
        var h = harness(os: 15)
        h.ok(.configureSession(app, SessionConfiguration(camera: camera("back"), runByARKit: true)))
        #expect(h.state.invariantViolations(settings: h.engine.settings).isEmpty)
        var state = h.state
        state.apps[app]?.session?.configuration.outputs = [.videoData, .videoData]
        #expect(state.invariantViolations(settings: h.engine.settings).contains { $0.contains("C11") })
        state = h.state
        state.apps[app]?.session?.multitaskingCameraAccessSupported = true
        #expect(state.invariantViolations(settings: h.engine.settings).contains { $0.hasPrefix("C13") })
    }

    // MARK: Helpers

    func check(_ h: inout Harness, _ c: GraphCase, sourceLocation: SourceLocation = #_sourceLocation) {
        if let code = c.refused {
            let rejection = h.reject(.configureSession(app, c.configuration), sourceLocation: sourceLocation)
            #expect(rejection?.code == code, sourceLocation: sourceLocation)
            // The refusal names its rule.
            let rule = ["(C9)", "(C11)", "(C12)", "(C13)", "(C14)"]
            #expect(rule.contains { rejection?.message.contains($0) == true }, "\(String(describing: rejection))",
                    sourceLocation: sourceLocation)
        } else {
            h.ok(.configureSession(app, c.configuration), sourceLocation: sourceLocation)
            #expect(h.state.apps[app]?.session?.configuration == c.configuration, sourceLocation: sourceLocation)
        }
    }
}
