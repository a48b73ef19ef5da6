import CamsyncRuntime
import Testing
@testable import CamsyncPolicy


/// Random commands over several devices, displays, apps and cameras, including dead nodes and re-registrations.
struct CommandGenerator {
    var rng: SplitMix64
    let devices: [NodeID] = ["d0", "d1", "d2"]
    let displays: [NodeID] = ["x0", "x1"]

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

    func registration(_ node: NodeID, assertions: [AppAssertion] = []) -> NodeRegistration {
        switch node {
        case "d0": deviceRegistration(node, os: 17, model: "iPad Pro (12.9-inch, 6th generation)", assertions: assertions)
        case "d1": deviceRegistration(node, os: 15, multitaskingCamera: true, assertions: assertions)
        case "d2": deviceRegistration(node, os: 16, direction: .rightToLeft, assertions: assertions)
        default: displayRegistration(node, attachedTo: "d0")
        }
    }

    /// An app of the camera and PiP rules; audio commands pick theirs with `audioApp()`.
    mutating func app() -> AppID { AppID(device: pick(devices + ["d0"]), bundleID: pick(Apps.cameraAndPiP).bundleID) }

    mutating func camera(for app: AppID) -> CameraID {
        chance(75) ? CameraID(host: chance(90) ? app.device : pick(devices), name: pick(["front", "back"]))
            : CameraID(host: pick(displays), name: "cam")
    }

    mutating func frame() -> Frame {
        Frame(x: Int(rng.next() % 500), y: Int(rng.next() % 500), width: Int(rng.next() % 800), height: 1 + Int(rng.next() % 600))
    }

    mutating func configuration(for app: AppID) -> SessionConfiguration {
        let camera = camera(for: app)
        // C11, C12: several video data outputs (some with their own resolutions), a movie file with data outputs.
        let outputs: [CaptureOutput] = chance(40) ? [.videoData]
            : pick([[.videoData, .movieFile], [.videoData, .videoData], [.videoData, .videoData, .movieFile, .audioData], [.movieFile, .audioData]])
        let videoOutputs = outputs.filter { $0 == .videoData }.count
        let resolutions: [CaptureResolution] = videoOutputs > 1 && chance(50) ? (0..<videoOutputs).map { _ in pick(CaptureResolution.allCases) } : []
        // C14: a MultiCam session over the other built-in camera (d0 supports MultiCam).
        let additional: [CameraID] = chance(15) ? [CameraID(host: camera.host, name: camera.name == "front" ? "back" : "front")] : []
        return SessionConfiguration(
            camera: camera, multitaskingCameraAccessEnabled: chance(60), outputs: outputs,
            resolution: pick(CaptureResolution.allCases), proRAW: chance(10), deepFusion: chance(10),
            frameRate: pick([24, 30, 30, 60]), hardwareCost: chance(5) ? 1.2 : nil, audioInput: chance(30) || outputs.contains(.audioData),
            videoDataResolutions: resolutions, runByARKit: chance(10), additionalCameras: additional)
    }

    mutating func assertions(for device: NodeID) -> [AppAssertion] {
        (0..<Int(rng.next() % 4)).map { _ in
            let spec = pick(Apps.all)
            let app = AppID(device: device, bundleID: spec.bundleID)
            return AppAssertion(
                bundleID: spec.bundleID,
                scene: pick([.fullScreen, .background, .splitPrimary, .splitSecondary, .slideOver,
                             .stageWindow(StageWindow(screen: device, frame: frame()))]),
                session: chance(60) ? configuration(for: app) : nil, sessionWantsToRun: chance(70),
                pip: chance(40) ? PiPControllerSetup(kind: pick(PiPKind.allCases), canStartAutomaticallyFromInline: chance(50)) : nil)
        }
    }

    /// Mostly PiP-capable apps, so PiP windows meet often enough (P4).
    mutating func pipApp() -> AppID {
        chance(70) ? AppID(device: pick(devices), bundleID: pick([Apps.video, Apps.movies, Apps.call]).bundleID) : app()
    }

    /// Mostly apps that use audio, so sessions meet often enough (A3–A7).
    mutating func audioApp() -> AppID {
        chance(70) ? AppID(device: pick(devices), bundleID: pick([Apps.music, Apps.game, Apps.recorder, Apps.call, Apps.video]).bundleID)
            : AppID(device: pick(devices), bundleID: pick(Apps.all).bundleID)
    }

    /// Any category × options, about one in eight impossible (A1).
    mutating func audioConfiguration() -> AudioSessionConfiguration {
        let category = pick(AudioSessionCategory.allCases)
        let takesOptions = category == .playback || category == .playAndRecord || chance(12)
        return AudioSessionConfiguration(category: category, mixWithOthers: takesOptions && chance(40), duckOthers: takesOptions && chance(20))
    }

    mutating func next() -> Command {
        var a = app()
        let roll = rng.next() % 110
        if (62...86).contains(roll) || (8...17).contains(roll) && chance(40) { a = pipApp() }
        switch roll {
        case 0 where chance(40): return .declareNodeDead(pick(devices + displays))
        case 0, 1, 93...95: let n = pick(devices + displays); return .registerNode(registration(n, assertions: devices.contains(n) ? assertions(for: n) : []))
        case 2: return .attachDisplay(display: pick(displays), device: pick(devices))
        case 3: return .detachDisplay(display: pick(displays))
        case 4: return .setStageManager(device: pick(devices), enabled: chance(50))
        case 5: return .setAutoPiP(device: pick(devices), enabled: chance(70))
        case 6: return .setLayoutDirection(device: pick(devices), pick(LayoutDirection.allCases))
        case 7 where chance(20): return .unregisterNode(pick(devices + displays))
        case 7: return .goHome(device: pick(devices))
        case 8...17: return .openFullScreen(a, trigger: pick(OpenTrigger.allCases))
        case 18...21: return .split(a, side: pick(SplitSide.allCases))
        case 22...23: return .slideOver(a)
        case 24...27: return .stageOpen(a, StageWindow(screen: chance(70) ? a.device : pick(displays), frame: frame()))
        case 28...29: return .stageMove(a, StageWindow(screen: chance(50) ? a.device : pick(displays), frame: frame()))
        case 30: return .stageClose(a)
        case 31...33: return .goHome(device: pick(devices))
        case 34...35: return .sendToBackground(a, cause: pick(BackgroundCause.allCases))
        case 36: return .terminate(a)
        case 37...38: return .reportMemory(a, megabytes: Int(rng.next() % 400))
        case 39...46: return .configureSession(a, configuration(for: a))
        case 47...54: return .startSession(a)
        case 55...57: return .stopSession(a)
        case 58...59: return .startRecording(a, pick(RecordingOutput.allCases))
        case 60...61: return .stopRecording(a)
        case 62...65: return .setupPiP(a, PiPControllerSetup(kind: pick(PiPKind.allCases), hasContentSource: chance(90),
                                                             canStartAutomaticallyFromInline: chance(50), playingVideoFillsWindow: chance(30)))
        case 66: return .setPiPContentSource(a, present: chance(60))
        case 67: return .releasePiP(a)
        case 68...72: return .startPiP(a, trigger: chance(85) ? .user : .programmatic)
        case 73...74: return .stashPiP(a)
        case 75...76: return .unstashPiP(a)
        case 77...78: return .movePiP(a, screen: chance(70) ? a.device : pick(displays), frame: frame())
        case 79...80: return .closePiP(a)
        case 81...83: return .restorePiP(a)
        case 84...85: return .completePiPRestore(a)
        case 86: return .pipRestoreDeadlinePassed(a)
        case 87...92: return .setPressure(chance(80) ? .builtIn(device: pick(devices)) : .external(CameraID(host: pick(displays), name: "cam")),
                                          pick(SystemPressureLevel.allCases))
        case 100...101: return .setAudioCategory(audioApp(), audioConfiguration())
        case 102...104: return .activateAudioSession(audioApp())
        case 105: return .deactivateAudioSession(audioApp())
        // Audio apps come to the screen and leave it too (A2, A8).
        case 106...107: return .openFullScreen(audioApp(), trigger: .user)
        case 108: return .split(audioApp(), side: pick(SplitSide.allCases))
        default: return .installApp(device: pick(devices), AppSpec(bundleID: "com.example.extra\(rng.next() % 3)"))
        }
    }
}

/// Property-based runs: after every command the invariants hold (C1, C2, C7, L1, L4, L5, P4, P6, P9, K1, A1, A3–A8), grant tokens
/// strictly increase per camera system (C8), a rejection leaves state unchanged, and replay is deterministic (K3, K4).
@Suite struct PropertyTests {
    struct Run: Equatable {
        var state: ClusterState
        var events: [[Event]]
        var accepted = 0
    }

    static func run(seed: UInt64, count: Int, check: Bool) -> Run {
        var generator = CommandGenerator(seed: seed)
        var engine = PolicyEngine(settings: PolicySettings(stageWindowLimitPerScreen: 3, backgroundMediaMemoryLimitMB: 250))
        var now = Instant.zero
        var events: [[Event]] = []
        var accepted = 0
        var lastTokens: [CameraSystemID: GrantToken] = [:]
        for node in generator.devices + generator.displays {
            _ = engine.apply(.registerNode(generator.registration(node)), at: now)
        }
        for step in 0..<count {
            now = now.adding(milliseconds: Int64(generator.rng.next() % 700))
            let command: Command
            if let (deadline, due) = engine.nextDeadline(), deadline <= now, generator.chance(50) {
                command = due
            } else {
                command = generator.next()
            }
            let before = check ? engine.state : nil
            switch engine.apply(command, at: now) {
            case .success(let produced):
                accepted += 1
                events.append(produced)
                guard check else { continue }
                let violations = engine.state.invariantViolations(settings: engine.settings)
                if !violations.isEmpty {
                    Issue.record("seed \(seed) step \(step) \(command): \(violations)")
                    return Run(state: engine.state, events: events, accepted: accepted)
                }
                for case .cameraGranted(let system, _, let token) in produced {
                    if let last = lastTokens[system], token <= last {
                        Issue.record("C8: seed \(seed) step \(step): token \(token) after \(last) on \(system)")
                    }
                    lastTokens[system] = token
                }
            case .failure(let rejection):
                events.append([])
                if check, engine.state != before {
                    Issue.record("seed \(seed) step \(step): rejected \(command) (\(rejection)) but state changed")
                    return Run(state: engine.state, events: events, accepted: accepted)
                }
            }
        }
        return Run(state: engine.state, events: events, accepted: accepted)
    }

    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE])
    func invariantsHoldAndReplayIsDeterministic(_ seed: UInt64) {
        let first = Self.run(seed: seed, count: 10_000, check: true)
        #expect(first.accepted > 2_000, "too few accepted commands: \(first.accepted)")
        // The run reaches the interesting rules, not only rejections.
        let all = first.events.flatMap { $0 }
        let reasons = Set(all.compactMap { if case .sessionWasInterrupted(_, let r) = $0 { r } else { nil } })
        print("seed \(seed): interruption reasons \(Dictionary(grouping: all.compactMap { if case .sessionWasInterrupted(_, let r) = $0 { r.rawValue } else { nil } }, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })")
        // Reason 2 (A7) needs a microphone holder beside a capture session with audio input: rarer, checked across seeds.
        #expect(reasons.subtracting([.audioDeviceInUseByAnotherClient]) == [.videoDeviceNotAvailableInBackground, .videoDeviceInUseByAnotherClient,
                            .videoDeviceNotAvailableWithMultipleForegroundApps, .videoDeviceNotAvailableDueToSystemPressure])
        func count(_ matches: (Event) -> Bool) -> Int { all.filter(matches).count }
        #expect(count { if case .cameraGranted = $0 { true } else { false } } > 100)
        #expect(count { if case .sessionInterruptionEnded = $0 { true } else { false } } > 10)
        #expect(count { if case .nodeRejoined = $0 { true } else { false } } > 0)
        #expect(count { if case .throttleAdvised = $0 { true } else { false } } > 0)
        #expect(count { if case .recordingFinished = $0 { true } else { false } } > 0)
        let replay = Self.run(seed: seed, count: 10_000, check: false)
        #expect(first.state == replay.state)
        #expect(first.events == replay.events)
    }

    /// Rarer paths (P4 suspension, C10 disconnection, P9, K1 of a display) are reached across the seeds.
    @Test func rarePathsAreReachedAcrossSeeds() {
        let all = [UInt64(1), 2, 3, 0xC0FFEE].flatMap { Self.run(seed: $0, count: 10_000, check: false).events.flatMap { $0 } }
        func count(_ matches: (Event) -> Bool) -> Int { all.filter(matches).count }
        #expect(count { if case .pipSuspended = $0 { true } else { false } } > 0)
        #expect(count { if case .pipResumed = $0 { true } else { false } } > 0)
        #expect(count { if case .sessionCameraDisconnected = $0 { true } else { false } } > 0)
        #expect(count { if case .appTerminated(_, .memoryLimit) = $0 { true } else { false } } > 0)
        #expect(count { if case .recordingQualityAlert = $0 { true } else { false } } > 0)
        #expect(count { if case .pipRestoreFinished = $0 { true } else { false } } > 0)
        // A3–A8
        #expect(count { if case .sessionWasInterrupted(_, .audioDeviceInUseByAnotherClient) = $0 { true } else { false } } > 0)
        #expect(count { if case .audioInterruptionBegan(_, .default) = $0 { true } else { false } } > 0)
        #expect(count { if case .audioInterruptionBegan(_, .appWasSuspended) = $0 { true } else { false } } > 0)
        #expect(count { if case .audioInterruptionEnded = $0 { true } else { false } } > 0)
        #expect(count { if case .audioDuckingBegan = $0 { true } else { false } } > 0)
        #expect(count { if case .secondaryAudioSilenceHintBegan = $0 { true } else { false } } > 0)
    }
}
