import ArgumentParser
import CamsyncClient
import CamsyncProcessLab
import CamsyncTopology
import CamsyncConfig
import CamsyncPolicy
import CamsyncVerbs
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start a local cluster and play the seeds' story step by step, narrated (this is `make run`).",
        discussion: """
            A coordinator, two iPads (ipad-1 on iPadOS 16 with multitasking camera access, ipad-2 on \
            iPadOS 15) and an external display attached to ipad-1 run as separate processes in a temp \
            dir. Each step prints the `camsync ctl act` command it runs and the events apps see. The last \
            chapter is audio on ipad-2: music, a game mixing in, a call interrupting the music, and a \
            recorder refused the microphone with reason 2 (SPEC §8).
            """)

    @Flag(help: "One JSON object per step instead of narration.") var json = false
    @Option(help: "Keep the run directory (logs, journal) here instead of a temp dir removed at the end.") var runDir: String?
    @Option(help: "Pause between steps, in milliseconds (to read along; 1500 with --web unless given).") var pauseMs: Int?
    @Flag(help: "Serve the live web view beside the story (the coordinator's --http on a free loopback port; the URL is printed).")
    var web = false
    @Flag(help: "High availability: three coordinators on a 3-member etcd cluster; the leader is killed mid-story (make run-ha).")
    var ha = false

    struct Step {
        var narration: String
        var rules: String
        var node: String
        var action: String
    }

    static let steps: [Step] = [
        Step(narration: "A video call starts on ipad-1 (iPadOS 16): its capture session holds the front camera.",
             rules: "C1 C8", node: "ipad-1", action: "open com.example.videocall"),
        Step(narration: "…it configures its session with multitasking camera access, which iPadOS 16 supports.",
             rules: "C3", node: "ipad-1", action: "session configure com.example.videocall --camera front --multitasking"),
        Step(narration: "…and sets up a video-call PiP controller that may start automatically.",
             rules: "P1 P3", node: "ipad-1", action: "pip setup com.example.videocall video-call --auto-from-inline"),
        Step(narration: "The call's session starts: the coordinator grants the camera with token 1.",
             rules: "C1 C8", node: "ipad-1", action: "session start com.example.videocall"),
        Step(narration: "The user goes home: the call enters Picture in Picture and keeps the camera.",
             rules: "P3 C2 C3", node: "ipad-1", action: "home"),
        Step(narration: "The user opens Camera.app: it takes the camera; the call is interrupted with reason 3.",
             rules: "C4 C5 C7", node: "ipad-1", action: "open com.apple.camera"),
        Step(narration: "Camera.app closes: the camera returns to the call, which resumes (interruptionEnded).",
             rules: "C6 C7", node: "ipad-1", action: "terminate com.apple.camera"),
        Step(narration: "On ipad-2 (iPadOS 15) a video call runs full screen with its camera…",
             rules: "C1", node: "ipad-2", action: "open com.example.videocall"),
        Step(narration: "…configured on the front camera…", rules: "C3", node: "ipad-2",
             action: "session configure com.example.videocall --camera front"),
        Step(narration: "…and started.", rules: "C1 C8", node: "ipad-2", action: "session start com.example.videocall"),
        Step(narration: "The user puts Notes beside it in Split View: on iPadOS 15 the call is interrupted with reason 4.",
             rules: "L1 L2 L6 C2 C3", node: "ipad-2", action: "split com.example.notes right"),
        Step(narration: "On ipad-1, Notes opens as a Stage Manager window on the iPad screen…",
             rules: "L3", node: "ipad-1", action: "stage-open com.example.notes --screen ipad-1 --frame 0,0,800,600"),
        Step(narration: "…and the user drags it to the external display.",
             rules: "L3", node: "ipad-1", action: "stage-move com.example.notes --screen display-1 --frame 100,100,1200,800"),
        Step(narration: "ipad-1's camera system reports serious pressure: the holder is advised to throttle.",
             rules: "S1 S2", node: "ipad-1", action: "pressure serious"),
        Step(narration: "Pressure reaches shutdown: the call is interrupted with reason 5.",
             rules: "S3 C2", node: "ipad-1", action: "pressure shutdown"),
        Step(narration: "Pressure falls back to nominal: the interruption ends and the call runs again.",
             rules: "S3 C6", node: "ipad-1", action: "pressure nominal"),
        Step(narration: "The call records a movie while ipad-1 is multitasking (PiP + a Stage Manager window)…",
             rules: "R1 L6", node: "ipad-1", action: "record start com.example.videocall movie"),
        Step(narration: "…and stops: the lower-quality alert is shown, once for this device.",
             rules: "R1", node: "ipad-1", action: "record stop com.example.videocall"),
        Step(narration: "A second recording while multitasking: no alert this time (once per device, ever).",
             rules: "R1", node: "ipad-1", action: "record start com.example.videocall movie"),
        Step(narration: "…stopped. Still no second alert.", rules: "R1", node: "ipad-1", action: "record stop com.example.videocall"),
        // Audio, the other shared media resource (seed 003).
        Step(narration: "Audio on ipad-2: Music opens; its audio session stays inactive until the user taps play.",
             rules: "A1 A2", node: "ipad-2", action: "open com.example.music"),
        Step(narration: "The user taps play: Music activates its non-mixable playback session.",
             rules: "A2", node: "ipad-2", action: "audio activate com.example.music"),
        Step(narration: "A game opens: Music keeps playing in background (backgroundMedia); the game's secondary-audio hint begins.",
             rules: "A8 L5 A5", node: "ipad-2", action: "open com.example.game"),
        Step(narration: "The game starts its ambient soundtrack: it mixes with the music, nothing is interrupted.",
             rules: "A3 A5", node: "ipad-2", action: "audio activate com.example.game"),
        Step(narration: "The call comes back full screen: the game, without background audio, is interrupted (appWasSuspended).",
             rules: "A8", node: "ipad-2", action: "open com.example.videocall"),
        Step(narration: "The call activates its playAndRecord session: the music is interrupted.",
             rules: "A3 A5", node: "ipad-2", action: "audio activate com.example.videocall"),
        Step(narration: "A recorder opens; the call keeps its audio (and the microphone) in background…",
             rules: "A8 A7", node: "ipad-2", action: "open com.example.recorder"),
        Step(narration: "…the recorder configures its session with the microphone as an input…",
             rules: "A7", node: "ipad-2", action: "session configure com.example.recorder --camera front --audio-input"),
        Step(narration: "…and starts it: the call holds the microphone, so it is interrupted with reason 2.",
             rules: "A7 C2", node: "ipad-2", action: "session start com.example.recorder"),
        Step(narration: "The call hangs up: the music's interruption ends (shouldResume) and the recorder gets the microphone and camera.",
             rules: "A6 A7 C6", node: "ipad-2", action: "audio deactivate com.example.videocall"),
    ]

    /// The demo's nodes: two iPads (iPadOS 16 and 15) and a display attached to the first, each as in a node config file.
    static let nodeYAML = [
        """
            id: ipad-1
            kind: device
            device:
              model: iPad Pro (iPadOS 16)
              os: 16
              stageManagerEnabled: true
              cameras: [ { name: front, position: front }, { name: back, position: back } ]
              apps:
                - { bundleID: com.apple.camera, systemCameraApp: true, audioSessionCategory: playAndRecord }
                - { bundleID: com.example.videocall, backgroundModePiP: true, audioSessionCategory: playAndRecord }
                - { bundleID: com.example.notes }
            """,
        """
            id: ipad-2
            kind: device
            device:
              model: iPad Air (iPadOS 15)
              os: 15
              multitaskingCameraSupported: false
              stageManagerSupported: false
              cameras: [ { name: front, position: front } ]
              apps:
                - { bundleID: com.example.videocall, deploymentTarget: 15, backgroundModePiP: true, audioSessionCategory: playAndRecord }
                - { bundleID: com.example.notes }
                - { bundleID: com.example.music, backgroundModePiP: true, audioSessionCategory: playback }
                - { bundleID: com.example.game, audioSessionCategory: ambient }
                - { bundleID: com.example.recorder, deploymentTarget: 15 }
            """,
        """
            id: display-1
            kind: display
            display: { name: Studio Display, attachedTo: ipad-1, cameras: [ { name: center-stage, position: external } ] }
            """,
    ]

    /// The demo's cluster: one coordinator on ipc sockets in `directory`, or (`ha`) three on an etcd cluster.
    static func topology(directory: String, ha: Bool) throws -> Topology {
        let nodes = try nodeYAML.map(Topology.Node.init(yaml:))
        let settings = Topology.Settings(heartbeatMs: 250, liveness: 4)
        return try ha ? highAvailabilityTopology(settings: settings, nodes: nodes)
            : Topology(name: "demo", runDirectory: directory, settings: settings, nodes: nodes)
    }

    func run() throws {
        let directory = runDir ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("camsync-demo-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let topology = try Self.topology(directory: directory, ha: ha)
        let cluster = try LocalCluster(topology: topology, runDirectory: directory, executable: currentExecutable())
        let webAddress = web ? "127.0.0.1:\(LoopbackPorts.free())" : nil
        if let webAddress { cluster.coordinatorArguments += ["--http", webAddress] }
        let pauseMs = self.pauseMs ?? (web ? 1_500 : 0)
        // However the demo ends, its cluster ends: normally or by an error (the defer below), on
        // SIGINT, SIGTERM or SIGHUP or a crash (every child is killed, then the demo exits), and when
        // its reader goes away (`camsync demo | head -3`: a write to the closed pipe fails instead
        // of killing the demo by SIGPIPE, and the story stops at the next step).
        let keepDirectory = runDir != nil
        signal(SIGPIPE, SIG_IGN)
        ChildProcesses.installSignalHandlers {
            if !keepDirectory { try? FileManager.default.removeItem(atPath: directory) }
        }
        defer {
            cluster.stop(grace: 5)
            if runDir == nil { try? FileManager.default.removeItem(atPath: directory) }
        }
        note("camsync demo: starting " + (ha ? "3 etcd members, coordinators c1, c2, c3" : "a coordinator")
             + ", ipad-1 (iPadOS 16), ipad-2 (iPadOS 15) and display-1 in \(directory)")
        try cluster.start(timeout: ha ? 60 : 30) { note("  … \($0)") }
        try cluster.waitUntil(timeout: 10, what: "display-1 to attach to ipad-1") {
            try cluster.coordinatorState().state.nodes["display-1"]?.attachedTo == "ipad-1"
        }
        note("  cluster up: every node registered and synced.\n")
        if let webAddress {
            note("  live web view: http://\(webAddress)/  (metrics: http://\(webAddress)/metrics)\n")
        }

        var seen: [String: UInt64] = [:]
        for (index, step) in Self.steps.enumerated() {
            if DemoOutput.closed { return }
            if !json && !(ha && index == Self.failoverAfterStep) {
                say("\(index + 1). \(step.narration)  [\(step.rules)]")
                say("   $ camsync ctl act \(step.node) \(step.action)")
            }
            let command = try ActionVerbs.parse(node: NodeID(step.node), line: step.action)
            let control = try cluster.controlClient(step.node)
            defer { control.close() }
            func act() -> String {
                do {
                    return "sequence \(try control.act(command))"
                } catch {
                    return "refused: \(error)"
                }
            }
            var outcome = ""
            if ha && index == Self.failoverAfterStep {
                let (failover, acted) = try self.failover(cluster, next: act)
                narrate(failover, leaseSeconds: cluster.topology.etcd?.leaseSeconds ?? Self.highAvailabilityDefaults.leaseSeconds)
                outcome = acted
                if !json {
                    say("\(index + 1). \(step.narration)  [\(step.rules)]")
                    say("   $ camsync ctl act \(step.node) \(step.action)")
                }
            } else {
                outcome = act()
            }
            try waitForAgreement(cluster)
            let events = try newAppEvents(cluster, since: &seen)
            if json {
                let object: [String: Any] = ["step": index + 1, "narration": step.narration, "rules": step.rules,
                                             "node": step.node, "action": step.action, "outcome": outcome, "events": events]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                say(String(decoding: data, as: UTF8.self))
            } else {
                say("   → \(outcome)")
                for event in events { say("     \(event)") }
                say("")
            }
            if pauseMs > 0 { usleep(UInt32(pauseMs) * 1000) }
        }
        if !json && !DemoOutput.closed {
            let snapshot = try cluster.coordinatorState()
            say("Final status (camsync ctl status):")
            var report = StatusReport(state: snapshot.state, sequence: snapshot.sequence, term: snapshot.term,
                                      silence: snapshot.silence)
            report.counters = StatusReport.counterRows(snapshot.counters)
            // Every coordinator (HA: the killed one unreachable, by its name) and every etcd member, as `ctl status` shows them.
            report.highAvailability = HighAvailabilityReport.gather(
                context: try ZMQContext(), endpoints: cluster.localCommandEndpoints, names: LocalCluster.coordinatorNames(cluster.topology),
                curve: cluster.adminCurve, etcdTLS: ha ? try? cluster.etcdClientTLS(as: "root") : nil)
            say(CtlStatusCommand.render(report))
            say("Shutting down the cluster (SIGTERM to every process)…")
        }
    }

    private func waitForAgreement(_ cluster: LocalCluster) throws {
        try cluster.waitUntil(timeout: 10, what: "every replica to catch up") {
            let (coordinator, nodes) = try cluster.replicas()
            return nodes.values.allSatisfy { $0.caughtUp(with: coordinator) }
        }
    }

    /// App-facing events every node logged since the last call, as readable lines.
    private func newAppEvents(_ cluster: LocalCluster, since seen: inout [String: UInt64]) throws -> [String] {
        var lines: [(UInt64, String)] = []
        for node in cluster.topology.nodes.map(\.id) {
            let status = try cluster.status(node, after: seen[node] ?? 0)
            for event in status.appEvents {
                let details = event.details.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                lines.append((event.sequence, "\(node) \(event.app.bundleID): \(event.name)\(details.isEmpty ? "" : " " + details)"))
            }
            seen[node] = status.sequence
        }
        return lines.sorted { $0.0 < $1.0 }.map(\.1)
    }

    func say(_ line: String) { DemoOutput.write(line, to: STDOUT_FILENO) }

    /// Progress that is not part of the story's output: stderr with --json, so stdout stays JSON lines.
    private func note(_ line: String) {
        DemoOutput.write(line, to: json ? STDERR_FILENO : STDOUT_FILENO)
    }
}

/// The demo's output, written unbuffered with write(2). SIGPIPE is ignored while the demo runs, so
/// a reader that went away makes a write fail (EPIPE) instead of ending the process; `closed` then
/// holds, the demo stops at its next step, and its cluster is stopped as at any other end.
enum DemoOutput {
    nonisolated(unsafe) static var closed = false

    static func write(_ line: String, to descriptor: Int32) {
        guard !closed else { return }
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                closed = true
                return
            }
            offset += written
        }
    }
}

