import CamsyncRuntime
public import CamsyncPolicy
public import CamsyncWire

/// The adversarial frames of a flood, by kind, each kind with the error codes the coordinator
/// may answer it with. Frames are built from templates once; per frame only the request id
/// changes (appended as field 3, which protobuf allows in any position), so the flood can send
/// a million of them without spending its time in protobuf encoding.
public enum FloodKind: Int, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// Random bytes that do not decode (checked locally).
    case garbage = 1
    /// Strict prefixes of valid envelopes.
    case truncated
    /// Valid envelopes with protocol_version ≠ 1.
    case wrongVersion
    /// Structure-aware mutations of valid envelopes that no longer decode.
    case mutatedUndecodable
    /// Huge / over-long varints and lengths, deep group nesting.
    case monster
    /// More than one frame after the routing id.
    case multiFrame
    /// Envelopes that decode but whose command does not map (unknown enum numbers, missing fields, empty ids).
    case invalidCommand
    /// Well-formed commands from a real node naming apps, cameras, nodes and screens that do not exist.
    case impossibleReference
    /// Well-formed commands from senders that are not nodes of the cluster.
    case unknownSender
    /// A node acting for another, or a node declaring another dead.
    case impersonation
    /// An envelope without a sender.
    case emptySender
    /// Bodies the coordinator does not take: ack, error, snapshot, event batch, coordinator heartbeat.
    case unexpectedBody
    /// Off by default (`--huge-reference-bytes`): a real node naming an unknown app whose bundle id
    /// is huge. The refusal's message embeds the id and the retry window keeps it (see docs/HOSTILE.md).
    case hugeReference

    public var description: String {
        switch self {
        case .garbage: "garbage"
        case .truncated: "truncated"
        case .wrongVersion: "wrong-version"
        case .mutatedUndecodable: "mutated"
        case .monster: "huge-varint/deep-nesting"
        case .multiFrame: "multi-frame"
        case .invalidCommand: "invalid-command"
        case .impossibleReference: "impossible-reference"
        case .unknownSender: "unknown-sender"
        case .impersonation: "impersonation"
        case .emptySender: "empty-sender"
        case .unexpectedBody: "unexpected-body"
        case .hugeReference: "huge-reference"
        }
    }

    /// Replies to these copy no request id (the envelope did not decode, or there were several frames).
    public var answeredWithoutRequestID: Bool {
        switch self {
        case .garbage, .truncated, .wrongVersion, .mutatedUndecodable, .monster, .multiFrame: true
        default: false
        }
    }

    /// The codes a frame of a kind answered without the flood's request id may get.
    public static let codesWithoutRequestID: Set<Camsync_V1_ErrorCode> =
        allCases.filter(\.answeredWithoutRequestID).reduce(into: []) { $0.formUnion($1.allowedCodes) }

    /// The codes the coordinator may answer with.
    public var allowedCodes: Set<Camsync_V1_ErrorCode> {
        switch self {
        case .garbage, .truncated, .mutatedUndecodable, .monster: [.malformed, .unsupportedVersion]
        case .wrongVersion: [.unsupportedVersion]
        case .multiFrame, .invalidCommand: [.malformed]
        case .impossibleReference: [.rejected, .forbidden]
        case .hugeReference: [.rejected, .malformed]   // ids over 255 bytes are MALFORMED on the wire
        case .unknownSender: [.unknownNode]
        // NOT_REGISTERED: the node named was declared dead (K1) while the flood starved it of CPU (its
        // liveness window is 1.5 s); it registers again (the flood checks both nodes alive after).
        case .impersonation: [.forbidden, .notRegistered]
        case .emptySender: [.forbidden]
        case .unexpectedBody: [.unexpectedMessage]
        }
    }
}

/// Frame templates for a flood against a cluster whose nodes include `realNode` (a device) and `otherNode`.
public struct FloodFrames: Sendable {
    public struct Template: Sendable {
        /// The frames; the request id is appended to the last one unless `answeredWithoutRequestID`.
        public var frames: [[UInt8]]
        public var kind: FloodKind
    }

    public private(set) var templates: [FloodKind: [Template]] = [:]

    /// Request ids carry the kind in their top byte, so each reply can be traced to its kind.
    public static func requestID(kind: FloodKind, serial: UInt64) -> UInt64 { UInt64(kind.rawValue) << 56 | (serial & (1 << 56 - 1)) }
    public static func kind(ofRequestID id: UInt64) -> FloodKind? { FloodKind(rawValue: Int(id >> 56)) }

    public init(realNode: NodeID, otherNode: NodeID, seed: UInt64 = 0xF100D, hugeReferenceBytes: Int = 0) {
        var rng = SplitMix64(seed: seed)
        let app = AppID(device: realNode, bundleID: "com.example.notes")
        let good: [Envelope] = [
            .request(.goHome(device: realNode), sender: realNode.rawValue, requestID: 1),
            .request(.openFullScreen(app, trigger: .user), sender: realNode.rawValue, requestID: 2),
            .request(.configureSession(app, SessionConfiguration(camera: CameraID(host: realNode, name: "front"),
                                                                 outputs: [.videoData, .photo], resolution: .uhd4K)),
                     sender: realNode.rawValue, requestID: 3),
            .request(.registerNode(HostileCorpus.deviceRegistration(realNode, os: 17, stageManager: true)),
                     sender: realNode.rawValue, requestID: 4),
            .snapshotRequest(sender: realNode.rawValue, requestID: 5),
        ] + HostileCorpus.envelopes.filter { if case .command? = $0.body { true } else { false } }.prefix(40)
        let goodBytes = good.map { $0.serializedBytes() }

        func undecodable(_ bytes: [UInt8]) -> Bool { (try? Envelope.decode(bytes)) == nil }
        func add(_ kind: FloodKind, _ frames: [[UInt8]]) { templates[kind, default: []].append(Template(frames: frames, kind: kind)) }
        /// Envelope bytes without a request id (it is appended per frame).
        func noID(_ envelope: Envelope) -> [UInt8] {
            var copy = envelope
            copy.requestID = 0
            return copy.serializedBytes()
        }

        while templates[.garbage, default: []].count < 512 {
            let bytes = rng.bytes(Int.random(in: 0...300, using: &rng))
            if undecodable(bytes) { add(.garbage, [bytes]) }
        }
        for bytes in goodBytes {
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 12)) where undecodable(Array(bytes[..<cut])) {
                add(.truncated, [Array(bytes[..<cut])])
            }
        }
        for bytes in goodBytes {
            for _ in 0..<4 { add(.wrongVersion, [HostileMutator.mutate(bytes, corpus: goodBytes, kind: .wrongVersion, rng: &rng)]) }
        }
        templates[.wrongVersion] = templates[.wrongVersion]?.filter { (try? Envelope.decode($0.frames[0])) == nil }
        var attempts = 0
        while templates[.mutatedUndecodable, default: []].count < 512, attempts < 100_000 {
            attempts += 1
            let kind = rng.pick([HostileMutator.Kind.bitFlip, .splice, .insertBytes, .deleteRange, .interestingByte,
                                 .fieldSwap, .duplicateField, .shuffleFields, .varintValue])
            let bytes = HostileMutator.mutate(rng.pick(goodBytes), corpus: goodBytes, kind: kind, rng: &rng)
            if case .failure(let error) = Result(catching: { () throws(WireError) in try Envelope.decode(bytes) }),
               error.code == .malformed {
                add(.mutatedUndecodable, [bytes])
            }
        }
        for depth in [200, 5_000, 50_000] {
            for _ in 0..<4 {
                let bytes = HostileMutator.deepNesting(around: rng.pick(goodBytes), depth: depth, rng: &rng)
                if undecodable(bytes) { add(.monster, [bytes]) }
            }
        }
        for kind in [HostileMutator.Kind.hugeVarint, .hugeLength] {
            for _ in 0..<32 {
                let bytes = HostileMutator.mutate(rng.pick(goodBytes), corpus: goodBytes, kind: kind, rng: &rng)
                if undecodable(bytes) { add(.monster, [bytes]) }
            }
        }
        for _ in 0..<64 {
            let count = Int.random(in: 2...4, using: &rng)
            add(.multiFrame, (0..<count).map { _ in rng.chance(0.5) ? rng.pick(goodBytes) : rng.bytes(Int.random(in: 0...64, using: &rng)) })
        }
        // Decodable envelopes whose command does not map.
        let appRef = Camsync_V1_AppRef.with { $0.device = realNode.rawValue; $0.bundleID = "com.example.notes" }
        var invalid: [Camsync_V1_Command] = [
            Camsync_V1_Command(),
            .with { $0.split = .with { $0.app = appRef; $0.side = .UNRECOGNIZED(7) } },
            .with { $0.split = .with { $0.app = appRef } },
            .with { $0.openFullScreen = .with { $0.app = appRef; $0.trigger = .UNRECOGNIZED(1_000_000) } },
            .with { $0.setPressure = .with {
                $0.cameraSystem = .with { $0.builtinDevice = realNode.rawValue }; $0.level = .UNRECOGNIZED(99) } },
            .with { $0.startSession = .init() },
            .with { $0.stopSession = .with { $0.app = .with { $0.device = realNode.rawValue } } },
            .with { $0.movePip = .with { $0.app = appRef; $0.screen = realNode.rawValue } },
            .with { $0.configureSession = .with {
                $0.app = appRef
                $0.configuration = .with {
                    $0.camera = .with { $0.host = realNode.rawValue; $0.name = "front" }
                    $0.outputs = [.photo, .UNRECOGNIZED(42)]
                    $0.resolution = .hd720
                }
            } },
            .with { $0.registerNode = .with { $0.registration = .with { $0.node = realNode.rawValue } } },
        ]
        for _ in 0..<200 {  // and random enum numbers anywhere in valid commands, kept when they fail to map
            let bytes = HostileMutator.mutate(rng.pick(goodBytes), corpus: goodBytes, kind: .varintValue, rng: &rng)
            if let envelope = try? Envelope.decode(bytes), case .command(let command)? = envelope.body,
               (try? Command(wire: command)) == nil {
                invalid.append(command)
            }
        }
        for command in invalid {
            add(.invalidCommand, [noID(Envelope(sender: realNode.rawValue, body: .command(command)))])
        }
        for command in HostileCorpus.impossibleReferences.map({ $0.retargeted(to: realNode) }) {
            add(.impossibleReference, [noID(.request(command, sender: realNode.rawValue, requestID: 0))])
        }
        for index in 0..<256 {
            let stranger = "stranger-\(index)"
            add(.unknownSender, [noID(.request(.goHome(device: NodeID(stranger)), sender: stranger, requestID: 0))])
            // (A snapshot request from a stranger is answered with a snapshot in lab mode: not an error, not sent.)
        }
        add(.impersonation, [noID(.request(.goHome(device: realNode), sender: otherNode.rawValue, requestID: 0))])
        add(.impersonation, [noID(.request(.openFullScreen(app, trigger: .user), sender: otherNode.rawValue, requestID: 0))])
        add(.impersonation, [noID(.request(.declareNodeDead(otherNode), sender: realNode.rawValue, requestID: 0))])
        add(.impersonation, [noID(.request(.registerNode(HostileCorpus.deviceRegistration(otherNode, os: 17, stageManager: false)),
                                           sender: realNode.rawValue, requestID: 0))])
        add(.emptySender, [noID(.request(.goHome(device: realNode), sender: "", requestID: 0))])
        add(.emptySender, [noID(.snapshotRequest(sender: "", requestID: 0))])
        if hugeReferenceBytes > 0 {
            for index in 0..<16 {
                let ghost = AppID(device: realNode, bundleID: String(repeating: "x", count: hugeReferenceBytes) + "\(index)")
                add(.hugeReference, [noID(.request(.openFullScreen(ghost, trigger: .user), sender: realNode.rawValue, requestID: 0))])
            }
        }
        for envelope in HostileCorpus.envelopes {
            switch envelope.body {
            case .ack?, .error?, .snapshot?, .eventBatch?, .coordinatorHeartbeat?:
                var copy = envelope
                copy.sender = realNode.rawValue
                add(.unexpectedBody, [noID(copy)])
            default: break
            }
        }
    }

    /// The frames to send for one template with `serial`.
    public static func frames(_ template: Template, serial: UInt64) -> [[UInt8]] {
        guard !template.kind.answeredWithoutRequestID else { return template.frames }
        var frames = template.frames
        frames[frames.count - 1] += [0x18] + ProtobufWire.varint(requestID(kind: template.kind, serial: serial))
        return frames
    }
}

extension Command {
    /// The same command with every app reference moved to `device` (unknown bundles stay unknown).
    func retargeted(to device: NodeID) -> Command {
        func move(_ app: AppID) -> AppID { app.device == HostileCorpus.ipad1 ? AppID(device: device, bundleID: app.bundleID) : app }
        switch self {
        case .openFullScreen(let app, let trigger): return .openFullScreen(move(app), trigger: trigger)
        case .startSession(let app): return .startSession(move(app))
        case .configureSession(let app, let configuration):
            var configuration = configuration
            if configuration.camera.host == HostileCorpus.ipad1 { configuration.camera = CameraID(host: device, name: configuration.camera.name) }
            return .configureSession(move(app), configuration)
        case .stageOpen(let app, let window): return .stageOpen(move(app), window)
        case .movePiP(let app, let screen, let frame):
            return .movePiP(move(app), screen: screen == HostileCorpus.ipad1 ? device : screen, frame: frame)
        case .attachDisplay(let display, _): return .attachDisplay(display: display, device: device)
        case .reportMemory(let app, let megabytes): return .reportMemory(move(app), megabytes: megabytes)
        default: return self
        }
    }
}
