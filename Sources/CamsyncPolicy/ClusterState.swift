/// The whole cluster model the coordinator owns and every node replicates.
/// A value: copying it is a snapshot. Iterate dictionaries in sorted key order
/// wherever order can show (events, encodings) so that replay is deterministic.
public struct ClusterState: Hashable, Codable, Sendable {
    public var nodes: [NodeID: NodeRecord]
    public var apps: [AppID: AppRecord]
    public var cameraSystems: [CameraSystemID: CameraSystemRecord]
    /// R1: devices that have already shown the lower-quality recording alert.
    public var recordingAlertShown: Set<NodeID>
    /// A logical clock for ordering interruptions (C6 LIFO / longest waiting) and
    /// PiP suspensions (P4). Advances by one per use; part of state so replay matches.
    public var ordinal: UInt64

    public init() {
        nodes = [:]
        apps = [:]
        cameraSystems = [:]
        recordingAlertShown = []
        ordinal = 0
    }
}

/// A registered node, alive or dead. Dead nodes stay listed (with `alive == false`) so
/// status can show them; their apps, sessions and windows are gone (K1).
public struct NodeRecord: Hashable, Codable, Sendable {
    public var id: NodeID
    public var registration: NodeRegistration
    public var alive: Bool
    /// For a display: the device it is attached to now.
    public var attachedTo: NodeID?
    /// For a device: its settings as last set (start from the registration's attributes).
    public var stageManagerEnabled: Bool
    public var autoPiPEnabled: Bool
    public var layoutDirection: LayoutDirection
    /// When the node registered or last re-registered.
    public var registeredAt: Instant

    public init(id: NodeID, registration: NodeRegistration, alive: Bool, attachedTo: NodeID?,
                stageManagerEnabled: Bool, autoPiPEnabled: Bool, layoutDirection: LayoutDirection,
                registeredAt: Instant) {
        self.id = id
        self.registration = registration
        self.alive = alive
        self.attachedTo = attachedTo
        self.stageManagerEnabled = stageManagerEnabled
        self.autoPiPEnabled = autoPiPEnabled
        self.layoutDirection = layoutDirection
        self.registeredAt = registeredAt
    }

    public var kind: NodeKind { registration.kind }
}

/// An installed app and everything it runs.
public struct AppRecord: Hashable, Codable, Sendable {
    public var id: AppID
    public var spec: AppSpec
    public var scene: Scene
    /// L5; `nil` when the app is not running.
    public var role: Role?
    public var memoryFootprintMB: Int
    public var session: CaptureSessionRecord?
    public var pip: PiPRecord?
    /// A1–A8: the app's audio session (nil given to `init` means the declared category, inactive).
    public var audioSession: AudioSessionRecord

    public init(id: AppID, spec: AppSpec, scene: Scene = .notRunning, role: Role? = nil,
                memoryFootprintMB: Int, session: CaptureSessionRecord? = nil, pip: PiPRecord? = nil,
                audioSession: AudioSessionRecord? = nil) {
        self.id = id
        self.spec = spec
        self.scene = scene
        self.role = role
        self.memoryFootprintMB = memoryFootprintMB
        self.session = session
        self.pip = pip
        self.audioSession = audioSession ?? AudioSessionRecord(declared: spec.audioSessionCategory)
    }
}

/// A capture session of an app.
public struct CaptureSessionRecord: Hashable, Codable, Sendable {
    public var configuration: SessionConfiguration
    public var hardwareCost: Double
    /// C3: `isMultitaskingCameraAccessSupported` as the app would read it.
    public var multitaskingCameraAccessSupported: Bool
    public var wantsToRun: Bool
    public var state: SessionState
    /// C6: the ordinal at which this session was last preempted (C4), for LIFO return.
    public var preemptedAt: UInt64?
    /// C6 [policy]: the ordinal since which the session has been waiting, for longest-waiting.
    public var waitingSince: UInt64?
    public var recording: RecordingRecord?

    public init(configuration: SessionConfiguration, hardwareCost: Double, multitaskingCameraAccessSupported: Bool,
                wantsToRun: Bool = false, state: SessionState = .stopped, preemptedAt: UInt64? = nil,
                waitingSince: UInt64? = nil, recording: RecordingRecord? = nil) {
        self.configuration = configuration
        self.hardwareCost = hardwareCost
        self.multitaskingCameraAccessSupported = multitaskingCameraAccessSupported
        self.wantsToRun = wantsToRun
        self.state = state
        self.preemptedAt = preemptedAt
        self.waitingSince = waitingSince
        self.recording = recording
    }
}

/// A recording in progress (R1).
public struct RecordingRecord: Hashable, Codable, Sendable {
    public var output: RecordingOutput
    public var startedAt: Instant
    /// Whether the device was multitasking (L6) at any moment while it ran.
    public var multitaskedDuringRecording: Bool

    public init(output: RecordingOutput, startedAt: Instant, multitaskedDuringRecording: Bool) {
        self.output = output
        self.startedAt = startedAt
        self.multitaskedDuringRecording = multitaskedDuringRecording
    }
}

/// A PiP controller and its window.
public struct PiPRecord: Hashable, Codable, Sendable {
    public var setup: PiPControllerSetup
    public var window: PiPWindowState
    /// P4: the ordinal at which the window was suspended, so the most recent resumes first.
    public var suspendedAt: UInt64?
    /// P6: set while a restore is in progress.
    public var restoreDeadline: Instant?

    public init(setup: PiPControllerSetup, window: PiPWindowState = .inactive, suspendedAt: UInt64? = nil,
                restoreDeadline: Instant? = nil) {
        self.setup = setup
        self.window = window
        self.suspendedAt = suspendedAt
        self.restoreDeadline = restoreDeadline
    }
}

/// A camera system: its host, cameras, pressure, holder and last token (C1, C8, S1).
public struct CameraSystemRecord: Hashable, Codable, Sendable {
    public var id: CameraSystemID
    public var cameras: [CameraID]
    public var pressure: SystemPressureLevel
    public var holder: AppID?
    /// The last token granted; the next grant gets `lastToken + 1` (C8).
    public var lastToken: GrantToken
    /// False while the host is dead or, for a display camera, while the display is detached (C10).
    public var available: Bool

    public init(id: CameraSystemID, cameras: [CameraID], pressure: SystemPressureLevel = .nominal,
                holder: AppID? = nil, lastToken: GrantToken = GrantToken(0), available: Bool = true) {
        self.id = id
        self.cameras = cameras
        self.pressure = pressure
        self.holder = holder
        self.lastToken = lastToken
        self.available = available
    }
}
