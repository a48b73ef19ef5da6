import Testing
import CamsyncNode
import CamsyncPolicy
@testable import CamsyncHistory

enum Apps {
    static let call = AppSpec(bundleID: "com.example.call", deploymentTarget: 16, backgroundModeAudioAirPlayPiP: true,
                              audioSessionCategory: .playAndRecord)
    static let camera = AppSpec(bundleID: "com.apple.camera", deploymentTarget: 16, isSystemCameraApp: true)
    static let notes = AppSpec(bundleID: "com.example.notes")
    static let scanner = AppSpec(bundleID: "com.example.scanner")
    static let music = AppSpec(bundleID: "com.example.music", backgroundModeAudioAirPlayPiP: true, audioSessionCategory: .playback)
    static let game = AppSpec(bundleID: "com.example.game", audioSessionCategory: .ambient)
    static let all = [call, camera, notes, scanner, music, game]
}

extension AppID {
    static func on(_ device: NodeID, _ spec: AppSpec) -> AppID { AppID(device: device, bundleID: spec.bundleID) }
}

func deviceRegistration(_ id: NodeID) -> NodeRegistration {
    NodeRegistration(node: id, attributes: .device(DeviceAttributes(
        model: "iPad Pro", osMajor: 17, cameras: [CameraSpec(name: "front", position: .front), CameraSpec(name: "back", position: .back)],
        apps: Apps.all)))
}

func displayRegistration(_ id: NodeID, attachedTo: NodeID?) -> NodeRegistration {
    NodeRegistration(node: id, attributes: .display(DisplayAttributes(
        name: "Studio Display", attachedTo: attachedTo, cameras: [CameraSpec(name: "cam", position: .external)])))
}

func front(_ device: NodeID) -> CameraID { CameraID(host: device, name: "front") }

/// Plays the soak driver against a bare `PolicyEngine`: every node sees every event at once,
/// hosts run a camera fence, and the history is recorded as the real driver would.
struct Recorder {
    var engine = PolicyEngine()
    var now: Int64 = 1_000
    var sequence: UInt64 = 0
    var live: Set<NodeID> = []
    var requestIDs: [NodeID: UInt64] = [:]
    var fence: [FenceRecord] = []
    var stops: [NodeStopped] = []
    var grants: [GrantObservation] = []
    var acks: [AcknowledgedCommand] = []
    var alerts: [AlertObservation] = []
    var sessions: [SessionObservation] = []
    var audio: [AudioObservation] = []
    var journal: [JournalRow] = []
    var replay: [ReplayCommand] = []
    var fenceHighest: [NodeID: [CameraSystemID: GrantToken]] = [:]
    var fenceHolder: [NodeID: [CameraSystemID: (AppID, GrantToken)]] = [:]
    var operations = 0
    var faults: [String: Int] = [:]

    @discardableResult
    mutating func run(_ command: Command, from node: NodeID, sourceLocation: SourceLocation = #_sourceLocation) -> [Event] {
        now += 10
        operations += 1
        let at = Instant(milliseconds: now)
        guard case .success(let events) = engine.apply(command, at: at) else {
            Issue.record("\(command) rejected", sourceLocation: sourceLocation)
            return []
        }
        sequence += 1
        let request = (requestIDs[node] ?? 0) + 1
        requestIDs[node] = request
        journal.append(JournalRow(sequence: sequence, node: node, requestID: request))
        replay.append(ReplayCommand(sequence: sequence, command: command, at: at))
        if case .registerNode(let registration) = command { live.insert(registration.node) }
        for event in events {
            switch event {
            case .cameraGranted(let system, let app, let token):
                for observer in live.sorted() {
                    grants.append(GrantObservation(node: observer, system: system, app: app, token: token, sequence: sequence))
                }
                observeFence(system, allow: (app, token))
            case .cameraReleased(let system, let app):
                if let (holder, token) = fenceHolder[system.host]?[system], holder == app {
                    observeFence(system, release: (app, token))
                }
            case .recordingQualityAlert(let device, let app):
                for observer in live.sorted() {
                    alerts.append(AlertObservation(node: observer, device: device, app: app, sequence: sequence))
                }
            default: break
            }
        }
        // Each live device tells its apps what the node would (AppFacingEvent), as the soak driver reads it.
        for device in live.sorted() {
            for event in AppFacingEvent.from(events, sequence: sequence, device: device) {
                let details = Dictionary(event.details, uniquingKeysWith: { _, last in last })
                if let seen = AudioObservation(node: device, app: event.app, sequence: sequence, name: event.name, details: details) {
                    audio.append(seen)
                }
            }
        }
        if live.contains(node) {
            for id in engine.state.apps.keys.sorted() {
                if let state = engine.state.apps[id]?.session?.state {
                    sessions.append(SessionObservation(node: node, app: id, state: state, sequence: sequence))
                }
            }
        }
        // The client gets its ack after the command is durable.
        acks.append(AcknowledgedCommand(node: node, requestID: request, sequence: sequence, command: command,
                                        ackedAt: Instant(milliseconds: now + 1)))
        return events
    }

    mutating func observeFence(_ system: CameraSystemID, allow: (AppID, GrantToken)? = nil, release: (AppID, GrantToken)? = nil) {
        let host = system.host
        guard live.contains(host) else { return }
        let at = Instant(milliseconds: now)
        if let (app, token) = allow {
            if let seen = fenceHighest[host]?[system], token <= seen {
                let decision = FenceDecision(.refusedStale(highest: seen), system: system, app: app, token: token)
                fence.append(FenceRecord(node: host, decision: decision, sequence: sequence, at: at))
                return
            }
            fenceHighest[host, default: [:]][system] = token
            fenceHolder[host, default: [:]][system] = (app, token)
            fence.append(FenceRecord(node: host, decision: FenceDecision(.allowed, system: system, app: app, token: token),
                                     sequence: sequence, at: at))
        }
        if let (app, token) = release {
            fenceHolder[host]?[system] = nil
            fence.append(FenceRecord(node: host, decision: FenceDecision(.released, system: system, app: app, token: token),
                                     sequence: sequence, at: at))
        }
    }

    /// kill -9 of a node: its process ends now; the coordinator declares it dead later.
    mutating func kill(_ node: NodeID) {
        now += 5
        stops.append(NodeStopped(node: node, at: Instant(milliseconds: now)))
        live.remove(node)
        fenceHolder[node] = nil
        faults["kill9", default: 0] += 1
    }

    var history: History {
        History(
            fence: fence, nodeStops: stops, grants: grants, acks: acks, alerts: alerts, sessions: sessions, audio: audio,
            replay: ReplayInput(commands: replay),
            final: FinalState(coordinatorState: engine.state, coordinatorSequence: sequence, journal: journal,
                              replicas: live.sorted().map { ReplicaState(node: $0, state: engine.state, sequence: sequence) }),
            operations: operations, faults: faults.sorted { $0.key < $1.key }.map { FaultCount(kind: $0.key, count: $0.value) },
            endedAt: Instant(milliseconds: now + 100))
    }
}

/// A realistic run: two iPads and a display, apps contending for a camera, Camera.app preempting,
/// a recording while multitasking (R1), a display camera, and an iPad killed and declared dead.
func realisticRun() -> Recorder {
    var r = Recorder()
    let a: NodeID = "ipad-a", b: NodeID = "ipad-b", display: NodeID = "display-1"
    let scannerA = AppID.on(a, Apps.scanner), callA = AppID.on(a, Apps.call), cameraA = AppID.on(a, Apps.camera)
    let notesA = AppID.on(a, Apps.notes), scannerB = AppID.on(b, Apps.scanner), notesB = AppID.on(b, Apps.notes)
    r.run(.registerNode(deviceRegistration(a)), from: a)
    r.run(.registerNode(deviceRegistration(b)), from: b)
    r.run(.registerNode(displayRegistration(display, attachedTo: a)), from: display)
    // The scanner takes ipad-a's camera; the call opens over it (scanner to background, reason 1).
    r.run(.openFullScreen(scannerA, trigger: .user), from: a)
    r.run(.configureSession(scannerA, SessionConfiguration(camera: front(a))), from: a)
    r.run(.startSession(scannerA), from: a)
    r.run(.openFullScreen(callA, trigger: .user), from: a)
    r.run(.configureSession(callA, SessionConfiguration(camera: front(a), multitaskingCameraAccessEnabled: true)), from: a)
    r.run(.startSession(callA), from: a)
    // Camera.app preempts the call (C4), records while a Slide Over app makes the device multitask (R1).
    r.run(.openFullScreen(cameraA, trigger: .user), from: a)
    r.run(.startRecording(cameraA, .movieFile), from: a)
    r.run(.slideOver(notesA), from: a)
    r.run(.sendToBackground(notesA, cause: .homeGesture), from: a)
    r.run(.stopRecording(cameraA), from: a)
    // Camera.app closes: the call gets the camera back (C6).
    r.run(.goHome(device: a), from: a)
    // ipad-b: notes uses the display? No — display-1 is ipad-a's; ipad-b contends on its own camera.
    r.run(.openFullScreen(scannerB, trigger: .user), from: b)
    r.run(.configureSession(scannerB, SessionConfiguration(camera: front(b))), from: b)
    r.run(.startSession(scannerB), from: b)
    r.run(.openFullScreen(notesB, trigger: .user), from: b)
    r.run(.configureSession(notesB, SessionConfiguration(camera: front(b))), from: b)
    r.run(.startSession(notesB), from: b)
    // ipad-a's notes uses the display camera.
    r.run(.openFullScreen(notesA, trigger: .user), from: a)
    r.run(.configureSession(notesA, SessionConfiguration(camera: CameraID(host: display, name: "cam"))), from: a)
    r.run(.startSession(notesA), from: a)
    // ipad-b is killed; the coordinator's liveness check declares it dead (K1).
    r.kill(b)
    r.now += 1_500
    r.run(.declareNodeDead(b), from: "coordinator")
    r.run(.openFullScreen(cameraA, trigger: .user), from: a)
    return r
}
