package import CamsyncRuntime
package import CamsyncPolicy
package import CamsyncHistory

/// Seeded random user/app actions over the soak topology. Many are refused by the engine
/// (that is part of the test: a refusal is an answer and must change nothing).
package struct Workload {
    package var rng: SplitMix64

    /// What apps must have been told of their audio sessions in every soak (A3, A5): the coverage
    /// its check expects.
    package static let audioCoverage: Set<AudioObservation.Kind> = [.interruptionBegan, .silenceHintBegan, .silenceHintEnded]

    /// A fixed prologue that reaches `audioCoverage` from a fresh cluster, whatever the timing: on
    /// ipad-2 the music app plays (playback, not mixable); the player opens over it and is told to
    /// silence secondary audio (A5); the player's own session interrupts the music (A3) and ends the
    /// player's hint; the player stops, and the music's interruption ends (A6). The random workload
    /// reaches these only by chance, and a loaded run with many faults acknowledges too few
    /// commands to count on it: one such run logged no audio notification at all.
    package static let audioPrologue: [(node: NodeID, command: Command)] = {
        let device = NodeID(SoakTopology.devices[1])
        let music = AppID(device: device, bundleID: "com.example.music")
        let player = AppID(device: device, bundleID: "com.example.player")
        return [
            .openFullScreen(music, trigger: .user),
            .activateAudioSession(music),
            .openFullScreen(player, trigger: .user),
            .activateAudioSession(player),
            .deactivateAudioSession(player),
        ].map { (device, $0) }
    }()

    package init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    package mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
    package mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

    /// The next action: the node that issues it (the subject) and the command.
    package mutating func next() -> (node: NodeID, command: Command) {
        if chance(8) {
            let display = pick(SoakTopology.displays)
            let level = pick(SystemPressureLevel.allCases)
            return (NodeID(display.id), .setPressure(.external(CameraID(host: NodeID(display.id), name: "cam")), level))
        }
        let device = NodeID(pick(SoakTopology.devices))
        let app = AppID(device: device, bundleID: pick(SoakTopology.apps))
        let frame = Frame(x: Int(rng.next() % 400), y: Int(rng.next() % 300), width: 600, height: 400)
        let screens = [device] + SoakTopology.displays.filter { $0.device == device.rawValue }.map { NodeID($0.id) }
        let command: Command
        switch rng.next() % 28 {
        case 0, 1: command = .openFullScreen(app, trigger: chance(20) ? .notification : .user)
        case 2: command = .goHome(device: device)
        case 3: command = .split(app, side: chance(50) ? .left : .right)
        case 4: command = .slideOver(app)
        case 5: command = .stageOpen(app, StageWindow(screen: pick(screens), frame: frame))
        case 6: command = .stageMove(app, StageWindow(screen: pick(screens), frame: frame))
        case 7: command = .stageClose(app)
        case 8: command = .terminate(app)
        case 9, 10:
            let cameras = [CameraID(host: device, name: "front"), CameraID(host: device, name: "back")]
                + SoakTopology.displays.filter { $0.device == device.rawValue }.map { CameraID(host: NodeID($0.id), name: "cam") }
            let camera = pick(cameras)
            // C11, C12: several video data outputs (some with their own resolutions), a movie file with data outputs.
            let outputs: [CaptureOutput] = chance(40) ? [.videoData]
                : pick([[.videoData, .movieFile], [.videoData, .videoData], [.videoData, .videoData, .movieFile, .audioData]])
            let resolution: CaptureResolution = pick([.hd720, .hd1080, .uhd4K])
            let videoOutputs = outputs.filter { $0 == .videoData }.count
            let videoResolutions: [CaptureResolution] = videoOutputs > 1 && chance(50) ? [resolution] + [pick([.vga, .hd720])] : []
            // C14: a MultiCam session over the device's other built-in cameras (ipad-1 supports MultiCam).
            let others = ["front", "back", "telephoto"].filter { $0 != camera.name }.map { CameraID(host: device, name: $0) }
            let additional: [CameraID] = camera.host == device && chance(15) ? [pick(others)] : []
            command = .configureSession(app, SessionConfiguration(
                camera: camera, multitaskingCameraAccessEnabled: chance(60), outputs: outputs,
                resolution: resolution, frameRate: pick([30, 60]), audioInput: chance(30) || outputs.contains(.audioData),
                videoDataResolutions: videoResolutions, runByARKit: chance(10), additionalCameras: additional))
        case 11, 12, 13: command = .startSession(app)
        case 14: command = .stopSession(app)
        case 15: command = chance(50) ? .startRecording(app, .movieFile) : .stopRecording(app)
        case 16: command = .setupPiP(app, PiPControllerSetup(kind: chance(50) ? .videoCall : .playback,
                                                             canStartAutomaticallyFromInline: chance(50)))
        case 17: command = .startPiP(app, trigger: chance(85) ? .user : .programmatic)
        case 18: command = chance(50) ? .stashPiP(app) : .unstashPiP(app)
        case 19: command = chance(50) ? .closePiP(app) : .restorePiP(app)
        case 20: command = .completePiPRestore(app)
        case 21: command = .setPressure(.builtIn(device: device), pick(SystemPressureLevel.allCases))
        case 22: command = .reportMemory(app, megabytes: pick([80, 150, 250]))
        // A1–A8: the apps' own audio session calls, any category × options (some impossible, refused).
        case 24:
            let category = pick(AudioSessionCategory.allCases)
            command = .setAudioCategory(app, AudioSessionConfiguration(category: category, mixWithOthers: chance(30), duckOthers: chance(15)))
        case 25, 26: command = .activateAudioSession(app)
        case 27: command = .deactivateAudioSession(app)
        default: command = .sendToBackground(app, cause: pick(BackgroundCause.allCases))
        }
        return (device, command)
    }
}
