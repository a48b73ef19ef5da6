#if canImport(Glibc)
import CamsyncRuntime
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import CamsyncPolicy

/// A throughput measurement of `PolicyEngine.apply(_:at:)` alone (no journal, no sockets).
///
/// Builds `devices` devices with 10 apps each (the nine fixture apps and one plain app) and one
/// external display per 10 devices, warms every device up (a video call open full screen with a
/// running session, a video player with a PiP controller), then applies `commands` commands of a
/// realistic mix — open, split, start/stop sessions, PiP start/stash/unstash/close/restore,
/// pressure, recording, home, memory reports — on random devices, and times them.
///
/// The default test runs a small size so `swift test` stays fast; run a larger size by hand:
///
///     CAMSYNC_ENGINE_SCALE=1000 swift test -c release --filter EngineThroughput
///
/// (`CAMSYNC_ENGINE_COMMANDS` sets the number of timed commands.) docs/POLICY.md "Performance"
/// records the figures.
struct EngineThroughput: CustomStringConvertible {
    var devices: Int
    var apps: Int
    var commands: Int
    var accepted: Int
    var events: Int
    var seconds: Double
    var engine: PolicyEngine

    var commandsPerSecond: Double { Double(commands) / max(seconds, 1e-9) }

    var description: String {
        let rate = Int(commandsPerSecond.rounded())
        let micros = (seconds / Double(max(commands, 1)) * 1e7).rounded() / 10
        return "engine throughput: \(devices) devices, \(apps) apps, \(commands) commands (\(accepted) accepted, "
            + "\(events) events) in \(Int((seconds * 1000).rounded())) ms: \(rate) commands/s, \(micros) µs/command"
    }

    static let extra = AppSpec(bundleID: "com.example.plain")
    static let specs = Apps.cameraAndPiP + [extra]

    static func device(_ index: Int) -> NodeID { NodeID("dev\(index)") }
    static func display(_ index: Int) -> NodeID { NodeID("disp\(index)") }

    static func measure(devices: Int, commands: Int, seed: UInt64 = 42) -> EngineThroughput {
        var engine = PolicyEngine(settings: PolicySettings(stageWindowLimitPerScreen: 4, backgroundMediaMemoryLimitMB: 250))
        var now = Instant.zero
        func apply(_ command: Command) -> Result<[Event], Rejection> {
            now = now.adding(milliseconds: 1)
            return engine.apply(command, at: now)
        }
        // Setup (not timed).
        for index in 0..<devices {
            _ = apply(.registerNode(deviceRegistration(device(index), os: 16 + index % 2, apps: specs)))
        }
        for index in 0..<(devices + 9) / 10 {
            _ = apply(.registerNode(displayRegistration(display(index), attachedTo: device(index * 10))))
        }
        for index in 0..<devices {
            let d = device(index)
            let call = AppID.on(d, Apps.call)
            _ = apply(.setupPiP(AppID.on(d, Apps.video), PiPControllerSetup(kind: .playback, canStartAutomaticallyFromInline: true)))
            _ = apply(.openFullScreen(call, trigger: .user))
            _ = apply(.configureSession(call, SessionConfiguration(camera: front(d), multitaskingCameraAccessEnabled: true)))
            _ = apply(.startSession(call))
            _ = apply(.setupPiP(call, PiPControllerSetup(kind: .videoCall)))
        }

        // The timed mix.
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        var mix: [Command] = []
        mix.reserveCapacity(commands)
        for _ in 0..<commands {
            let index = Int(rng.next() % UInt64(devices))
            let d = device(index)
            let app = AppID.on(d, pick(specs))
            let camera = rng.next() % 8 == 0 && index % 10 == 0
                ? CameraID(host: display(index / 10), name: "cam") : CameraID(host: d, name: pick(["front", "back"]))
            let command: Command
            switch rng.next() % 100 {
            case 0..<18: command = .openFullScreen(app, trigger: pick(OpenTrigger.allCases))
            case 18..<26: command = .split(app, side: pick(SplitSide.allCases))
            case 26..<30: command = .slideOver(app)
            case 30..<38: command = .configureSession(app, SessionConfiguration(
                camera: camera, multitaskingCameraAccessEnabled: rng.next() % 2 == 0))
            case 38..<50: command = .startSession(app)
            case 50..<55: command = .stopSession(app)
            case 55..<58: command = .setupPiP(app, PiPControllerSetup(kind: pick(PiPKind.allCases),
                                                                       canStartAutomaticallyFromInline: rng.next() % 2 == 0))
            case 58..<66: command = .startPiP(app, trigger: .user)
            case 66..<71: command = .stashPiP(app)
            case 71..<76: command = .unstashPiP(app)
            case 76..<79: command = .closePiP(app)
            case 79..<81: command = .restorePiP(app)
            case 81..<86: command = .setPressure(.builtIn(device: d), pick(SystemPressureLevel.allCases))
            case 86..<89: command = .startRecording(app, pick(RecordingOutput.allCases))
            case 89..<91: command = .stopRecording(app)
            case 91..<95: command = .goHome(device: d)
            case 95..<98: command = .sendToBackground(app, cause: pick(BackgroundCause.allCases))
            default: command = .reportMemory(app, megabytes: Int(rng.next() % 300))
            }
            mix.append(command)
        }
        var accepted = 0
        var events = 0
        let clock = ContinuousClock()
        let start = clock.now
        for command in mix {
            now = now.adding(milliseconds: 1)
            if case .success(let produced) = engine.apply(command, at: now) {
                accepted += 1
                events += produced.count
            }
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return EngineThroughput(devices: devices, apps: engine.state.apps.count, commands: commands, accepted: accepted,
                                events: events, seconds: seconds, engine: engine)
    }

    /// An integer from the environment, or `fallback`.
    static func environment(_ name: String, default fallback: Int) -> Int {
        guard let raw = getenv(name), let value = Int(String(cString: raw)), value > 0 else { return fallback }
        return value
    }
}

@Suite struct EngineThroughputTests {
    /// Small by default (fast in debug); `CAMSYNC_ENGINE_SCALE` / `CAMSYNC_ENGINE_COMMANDS` scale it up.
    @Test func engineThroughput() {
        let devices = EngineThroughput.environment("CAMSYNC_ENGINE_SCALE", default: 10)
        let commands = EngineThroughput.environment("CAMSYNC_ENGINE_COMMANDS", default: 2_000)
        let result = EngineThroughput.measure(devices: devices, commands: commands)
        print(result)
        #expect(result.apps == devices * 10)
        // The mix exercises the engine, not only its rejections.
        #expect(result.accepted > commands / 3, "\(result)")
        if devices <= 100 {
            let violations = result.engine.state.invariantViolations(settings: result.engine.settings)
            #expect(violations.isEmpty, "\(violations.prefix(5))")
        }
    }
}
