import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import SwiftProtobuf
import Testing

/// One invalid wire command and the error its mapping must give.
struct BadCommand: Sendable, CustomTestStringConvertible {
    var name: String
    var wire: Camsync_V1_Command
    var expected: WireMappingError
    var testDescription: String { name }
}

private let app = Camsync_V1_AppRef(Samples.tv)

private func command(_ build: (inout Camsync_V1_Command) -> Void) -> Camsync_V1_Command {
    var command = Camsync_V1_Command()
    build(&command)
    return command
}

@Suite("Hostile input")
struct HostileInputTests {
    static let badCommands: [BadCommand] = [
        BadCommand(name: "no oneof case", wire: Camsync_V1_Command(), expected: .init("kind", .missing)),
        BadCommand(name: "empty node id", wire: command { $0.unregisterNode = .with { $0.node = "" } },
                   expected: .init("unregister_node.node", .empty)),
        BadCommand(name: "missing app", wire: command { $0.startSession = .init() },
                   expected: .init("start_session.app", .missing)),
        BadCommand(name: "empty bundle id",
                   wire: command { $0.stopSession = .with { $0.app = .with { $0.device = "ipad-1" } } },
                   expected: .init("stop_session.app.bundle_id", .empty)),
        BadCommand(name: "empty device in app ref",
                   wire: command { $0.stashPip = .with { $0.app = .with { $0.bundleID = "x" } } },
                   expected: .init("stash_pip.app.device", .empty)),
        BadCommand(name: "UNSPECIFIED split side", wire: command { $0.split = .with { $0.app = app } },
                   expected: .init("split.side", .unspecified)),
        BadCommand(name: "unknown split side",
                   wire: command { $0.split = .with { $0.app = app; $0.side = .UNRECOGNIZED(7) } },
                   expected: .init("split.side", .unrecognized(7))),
        BadCommand(name: "UNSPECIFIED pressure level",
                   wire: command { $0.setPressure = .with { $0.cameraSystem = .with { $0.builtinDevice = "ipad-1" } } },
                   expected: .init("set_pressure.level", .unspecified)),
        BadCommand(name: "camera system without a case",
                   wire: command { $0.setPressure = .with { $0.cameraSystem = .init(); $0.level = .fair } },
                   expected: .init("set_pressure.camera_system.kind", .missing)),
        BadCommand(name: "external camera with empty name",
                   wire: command { $0.setPressure = .with {
                       $0.cameraSystem = .with { $0.externalCamera = .with { $0.host = "display-1" } }
                       $0.level = .fair
                   } },
                   expected: .init("set_pressure.camera_system.external_camera.name", .empty)),
        BadCommand(name: "move without frame",
                   wire: command { $0.movePip = .with { $0.app = app; $0.screen = "ipad-1" } },
                   expected: .init("move_pip.frame", .missing)),
        BadCommand(name: "registration without attributes",
                   wire: command { $0.registerNode = .with { $0.registration = .with { $0.node = "ipad-1" } } },
                   expected: .init("register_node.registration.attributes", .missing)),
        BadCommand(name: "registration with an UNSPECIFIED audio category",
                   wire: command { $0.registerNode = .with { $0.registration = .with {
                       $0.node = "ipad-1"
                       $0.device = .with {
                           $0.layoutDirection = .leftToRight
                           $0.apps = [.with { $0.bundleID = "a" }]
                       }
                   } } },
                   expected: .init("register_node.registration.device.apps[0].audio_session_category", .unspecified)),
        BadCommand(name: "stage window scene without a window",
                   wire: command { $0.registerNode = .with { $0.registration = .with {
                       $0.node = "ipad-1"
                       $0.device = .with { $0.layoutDirection = .leftToRight }
                       $0.assertions = [.with { $0.bundleID = "a"; $0.scene = .with { $0.kind = .stageWindow } }]
                   } } },
                   expected: .init("register_node.registration.assertions[0].scene.stage_window", .missing)),
        BadCommand(name: "full-screen scene with a window",
                   wire: command { $0.registerNode = .with { $0.registration = .with {
                       $0.node = "ipad-1"
                       $0.device = .with { $0.layoutDirection = .leftToRight }
                       $0.assertions = [.with {
                           $0.bundleID = "a"
                           $0.scene = .with { $0.kind = .fullScreen; $0.stageWindow = .init() }
                       }]
                   } } },
                   expected: .init("register_node.registration.assertions[0].scene.stage_window",
                                   .inconsistent("set on a scene of kind fullScreen"))),
        BadCommand(name: "unknown capture output",
                   wire: command { $0.configureSession = .with {
                       $0.app = app
                       $0.configuration = .with {
                           $0.camera = .with { $0.host = "ipad-1"; $0.name = "front" }
                           $0.outputs = [.photo, .UNRECOGNIZED(42)]
                           $0.resolution = .hd720
                       }
                   } },
                   expected: .init("configure_session.configuration.outputs[1]", .unrecognized(42))),
    ]

    @Test("invalid commands are rejected with the bad field named", arguments: badCommands)
    func badCommand(_ bad: BadCommand) throws {
        // Through bytes first: what a peer would actually receive.
        let wire = try Camsync_V1_Command(serializedBytes: bad.wire.serializedBytes() as [UInt8])
        #expect(throws: bad.expected) { try Command(wire: wire) }
        // And through an envelope, with the path starting at `command`.
        let envelope = Envelope(sender: "ipad-1", requestID: 1, body: .command(wire))
        #expect(throws: bad.expected.prefixedForTest("command")) {
            try Envelope.decode(envelope.serializedBytes()).domainCommand()
        }
    }

    @Test("an unknown enum value survives a proto round trip but the domain mapping rejects it")
    func unknownEnumValue() throws {
        var event = Camsync_V1_Event()
        event.sessionWasInterrupted = .with { $0.app = app; $0.reason = .UNRECOGNIZED(9) }
        let bytes: [UInt8] = try event.serializedBytes()
        let decoded = try Camsync_V1_Event(serializedBytes: bytes)
        #expect(decoded.sessionWasInterrupted.reason == .UNRECOGNIZED(9))
        #expect(try decoded.serializedBytes() == bytes)
        #expect(throws: WireMappingError("session_was_interrupted.reason", .unrecognized(9))) { try Event(wire: decoded) }

        // The same, arriving in a state snapshot from a newer peer.
        var state = Camsync_V1_ClusterState(Samples.clusterState())
        state.cameraSystems[0].pressure = .UNRECOGNIZED(6)
        let stateBytes: [UInt8] = try state.serializedBytes()
        let decodedState = try Camsync_V1_ClusterState(serializedBytes: stateBytes)
        #expect(decodedState.cameraSystems[0].pressure == .UNRECOGNIZED(6))
        #expect(try decodedState.serializedBytes() == stateBytes)
        #expect(throws: WireMappingError("camera_systems[0].pressure", .unrecognized(6))) {
            try ClusterState(wire: decodedState)
        }
    }

    @Test("invalid states are rejected: duplicate keys, inconsistent kinds")
    func badStates() {
        var duplicate = Camsync_V1_ClusterState(Samples.clusterState())
        duplicate.apps.append(duplicate.apps[1])
        #expect(throws: WireMappingError("apps[4].id", .duplicate("ipad-1/com.apple.facetime"))) {
            try ClusterState(wire: duplicate)
        }
        var alerts = Camsync_V1_ClusterState()
        alerts.recordingAlertShown = ["ipad-1", "ipad-1"]
        #expect(throws: WireMappingError("recording_alert_shown[1]", .duplicate("ipad-1"))) { try ClusterState(wire: alerts) }
        var running = Camsync_V1_ClusterState(Samples.clusterState())
        running.apps[0].session.state.reason = .videoDeviceInUseByAnotherClient  // camera app: running
        #expect(throws: WireMappingError("apps[0].session.state.reason",
                                         .inconsistent("set on a session state of kind running"))) {
            try ClusterState(wire: running)
        }
        var window = Camsync_V1_ClusterState(Samples.clusterState())
        window.apps[1].pip.window.stashed = true  // facetime: suspended
        #expect(throws: WireMappingError("apps[1].pip.window.stashed",
                                         .inconsistent("set on a window of kind suspended"))) {
            try ClusterState(wire: window)
        }
    }

    /// A command with a nested registration, a snapshot and an event batch: deep, varied encodings.
    static let truncationSamples: [Envelope] = Samples.envelopes.filter {
        switch $0.body {
        case .command(let command)?: if case .registerNode? = command.kind { return true } else { return false }
        case .snapshot?, .eventBatch?, .error?, .coordinatorHeartbeat?: return true
        default: return false
        }
    }

    @Test("every strict prefix of an envelope is a decoding error", arguments: truncationSamples)
    func truncated(_ envelope: Envelope) {
        let bytes = envelope.serializedBytes()
        for length in 0..<bytes.count {
            #expect(throws: WireError.self) { try Envelope.decode(Array(bytes[..<length])) }
        }
    }

    @Test("random garbage never crashes the decoder or the mapping")
    func garbage() {
        var rng = SplitMix64(seed: 0xC0FF_EE00_CAFE_F00D)
        var failures = 0
        for _ in 0..<4_000 {
            let count = Int.random(in: 0...256, using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do {
                let envelope = try Envelope.decode(bytes)
                exerciseMapping(envelope)
            } catch {
                failures += 1
            }
        }
        #expect(failures > 3_900)
    }

    @Test("bit flips in valid envelopes never crash the decoder or the mapping")
    func bitFlips() {
        var rng = SplitMix64(seed: 42)
        let samples = Samples.envelopes.map { $0.serializedBytes() }
        var decodedAfterFlip = 0
        for _ in 0..<4_000 {
            var bytes = samples[Int.random(in: 0..<samples.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            }
            if let envelope = try? Envelope.decode(bytes) {
                decodedAfterFlip += 1
                exerciseMapping(envelope)
            }
        }
        #expect(decodedAfterFlip > 0)
    }
}

/// Runs every domain mapping that applies to the envelope; errors are fine, crashes are not.
private func exerciseMapping(_ envelope: Envelope) {
    switch envelope.body {
    case .command(let command)?: _ = try? Command(wire: command)
    case .snapshot(let snapshot)?: _ = try? snapshot.domainState()
    case .eventBatch(let batch)?:
        _ = try? batch.domainCommand()
        _ = try? batch.domainEvents()
    case .error(let error)?: _ = try? Rejection(wire: error)
    default: break
    }
}

extension WireMappingError {
    func prefixedForTest(_ prefix: String) -> WireMappingError { WireMappingError("\(prefix).\(field)", problem) }
}

@Suite struct IdentifierLimitTests {
    @Test("ids longer than 255 bytes are refused as malformed, naming the field")
    func longIdsRefused() throws {
        let long = String(repeating: "a", count: 256)
        var envelope = Envelope.request(.goHome(device: "ipad-1"), sender: "ipad-1", requestID: 1)
        guard case .command(var command)? = envelope.body, case .goHome(var home)? = command.kind else {
            Issue.record("unexpected sample shape")
            return
        }
        home.device = long
        command.kind = .goHome(home)
        envelope.body = .command(command)
        #expect(throws: WireMappingError.self) { _ = try envelope.domainCommand() }
        home.device = String(repeating: "a", count: 255)
        command.kind = .goHome(home)
        envelope.body = .command(command)
        #expect(try envelope.domainCommand() == .goHome(device: NodeID(String(repeating: "a", count: 255))))
    }
}
