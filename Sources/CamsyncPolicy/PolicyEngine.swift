/// The coordinator's brain: a value that applies commands at a given time and
/// returns the ordered events they cause, or a rejection (state unchanged).
/// No I/O, no clock, no randomness.
///
/// Every handler validates first and mutates only after its last possible
/// rejection, so a refused command leaves `state` exactly as it was. After a
/// handler succeeds, `settle` runs the rules that follow from any change, in a
/// fixed order: background audio (A8), roles (L5) and the backgroundMedia memory
/// limit (P9), ducking, the silence hint and ended audio interruptions (A4–A6),
/// camera arbitration (C1–C8, with the microphone of A7) for every camera system the
/// command touched, pressure advice (S2), and recordings (R1).
///
/// Next to the state the engine keeps a `StateIndex` (apps per device, camera systems per host, …)
/// so a command costs in proportion to the devices it touches, not to the cluster. The index is
/// derived: two engines are equal, and hash alike, when their state and settings are.
public struct PolicyEngine: Hashable, Sendable {
    /// Only the engine's handlers write this, and they keep `index` in step with every change.
    public internal(set) var state: ClusterState
    public let settings: PolicySettings
    /// Derived look-up tables over `state`; see `StateIndex`.
    var index: StateIndex

    /// An engine over `state` (for instance a snapshot or a replica's copy); builds the index, O(state).
    public init(settings: PolicySettings = PolicySettings(), state: ClusterState = ClusterState()) {
        self.settings = settings
        self.state = state
        self.index = StateIndex(state)
    }

    public static func == (a: PolicyEngine, b: PolicyEngine) -> Bool {
        a.settings == b.settings && a.state == b.state
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(state)
        hasher.combine(settings)
    }

    /// Applies one command at `now`. On success returns the events in their deterministic
    /// order; on rejection the state is unchanged.
    public mutating func apply(_ command: Command, at now: Instant) -> Result<[Event], Rejection> {
        decide(command, at: now).map { $0.map(\.event) }
    }

    /// `apply`, with the SPEC rule that decided each event (`ctl why`, the web view's why panel).
    public mutating func decide(_ command: Command, at now: Instant) -> Result<[Decision], Rejection> {
        var tx = Transaction(now: now)
        do {
            try perform(command, &tx)
        } catch {
            return .failure(error)
        }
        settle(&tx)
        return .success(tx.decisions)
    }

    private mutating func perform(_ command: Command, _ tx: inout Transaction) throws(Rejection) {
        switch command {
        case .registerNode(let registration): try registerNode(registration, &tx)
        case .unregisterNode(let node): try removeNode(node, reason: .unregistered, &tx)
        case .declareNodeDead(let node): try removeNode(node, reason: .declaredDead, &tx)
        case .attachDisplay(let display, let device): try attachDisplay(display, to: device, &tx)
        case .detachDisplay(let display): try detachDisplayCommand(display, &tx)
        case .setStageManager(let device, let enabled): try setStageManager(device, enabled: enabled, &tx)
        case .setAutoPiP(let device, let enabled): try setAutoPiP(device, enabled: enabled, &tx)
        case .setLayoutDirection(let device, let direction): try setLayoutDirection(device, direction, &tx)
        case .installApp(let device, let spec): try installApp(spec, on: device, &tx)
        case .openFullScreen(let app, let trigger): try openFullScreen(app, trigger: trigger, &tx)
        case .split(let app, let side): try split(app, side: side, &tx)
        case .slideOver(let app): try slideOver(app, &tx)
        case .stageOpen(let app, let window): try stageOpen(app, window, &tx)
        case .stageMove(let app, let window): try stageMove(app, window, &tx)
        case .stageClose(let app): try stageClose(app, &tx)
        case .goHome(let device): try goHome(device, &tx)
        case .sendToBackground(let app, let cause): try sendToBackground(app, cause: cause, &tx)
        case .terminate(let app): try terminateCommand(app, &tx)
        case .reportMemory(let app, let megabytes): try reportMemory(app, megabytes: megabytes, &tx)
        case .configureSession(let app, let configuration): try configureSession(app, configuration, &tx)
        case .startSession(let app): try startSession(app, &tx)
        case .stopSession(let app): try stopSession(app, &tx)
        case .startRecording(let app, let output): try startRecording(app, output, &tx)
        case .stopRecording(let app): try stopRecording(app, &tx)
        case .setupPiP(let app, let setup): try setupPiP(app, setup, &tx)
        case .setPiPContentSource(let app, let present): try setPiPContentSource(app, present: present, &tx)
        case .releasePiP(let app): try releasePiP(app, &tx)
        case .startPiP(let app, let trigger): try startPiP(app, trigger: trigger, &tx)
        case .stashPiP(let app): try setPiPStashed(app, true, &tx)
        case .unstashPiP(let app): try setPiPStashed(app, false, &tx)
        case .movePiP(let app, let screen, let frame): try movePiP(app, screen: screen, frame: frame, &tx)
        case .closePiP(let app): try closePiP(app, &tx)
        case .restorePiP(let app): try restorePiP(app, &tx)
        case .completePiPRestore(let app): try completePiPRestore(app, &tx)
        case .pipRestoreDeadlinePassed(let app): try pipRestoreDeadlinePassed(app, &tx)
        case .setPressure(let system, let level): try setPressure(system, level, &tx)
        case .setAudioCategory(let app, let configuration): try setAudioCategory(app, configuration, &tx)
        case .activateAudioSession(let app): try activateAudioSession(app, &tx)
        case .deactivateAudioSession(let app): try deactivateAudioSession(app, &tx)
        }
    }

    /// The rules that follow from whatever the handler changed, in a fixed order.
    private mutating func settle(_ tx: inout Transaction) {
        // A8: audio of apps that left the screen without background audio is interrupted
        // (before roles: playing in background makes an app backgroundMedia).
        suspendBackgroundAudio(&tx)
        // L5 roles and P9: terminating an app can resume another PiP (P4), which changes
        // roles again, so repeat until nothing is over the limit.
        while true {
            let overLimit = refreshRoles(&tx)
            if overLimit.isEmpty { break }
            for id in overLimit { terminateApp(id, reason: .memoryLimit, &tx) }
        }
        // A4–A6: ducking, the secondary-audio hint and ended interruptions follow from the
        // activations above (before arbitration, which reads the microphone holder, A7).
        refreshAudio(&tx)
        // C1–C8, S2, S3 for every camera system the command may have touched.
        // A system is touched when its host was, when its host is an affected device, or when
        // its host is a display attached to an affected device (its arbitration device, C10).
        let devices = tx.affectedDevices(in: state)
        var hosts = tx.affected.union(devices)
        for device in devices { hosts.formUnion(index.attachedDisplays(device: device)) }
        let systems = hosts.flatMap { index.systems(hostedBy: $0) }.sorted()
        for system in systems { rearbitrate(system, &tx) }
        // R1 (arbitration touches no further nodes, so `devices` is still the affected set)
        updateRecordings(devices: devices, &tx)
    }

    /// L5: publishes every role that changed on the affected devices. Returns the apps over the
    /// backgroundMedia memory limit (P9) there, in device and app id order. Only running apps have
    /// a role, and the apps that stopped running in this command lose theirs.
    private mutating func refreshRoles(_ tx: inout Transaction) -> [AppID] {
        var overLimit: [AppID] = []
        for device in tx.affectedDevices(in: state) {
            let stopped = tx.stopped.filter { $0.device == device }
            let apps = stopped.isEmpty ? index.runningApps(of: device)
                : Set(index.runningApps(of: device)).union(stopped).sorted()
            for id in apps {
                guard let app = state.apps[id] else { continue }
                let role = app.computedRole
                if app.role != role {
                    state.updateApp(id) { $0.role = role }
                    tx.emit(.roleChanged(id, role))
                }
                if role == .backgroundMedia && app.memoryFootprintMB > settings.backgroundMediaMemoryLimitMB {
                    overLimit.append(id)
                }
            }
        }
        return overLimit
    }

    /// The next value of the logical clock (C6 ordering, P4 suspensions).
    mutating func nextOrdinal() -> UInt64 {
        state.ordinal += 1
        return state.ordinal
    }
}

/// What one command has done so far: its events (with the rule that decided each), the nodes it
/// touched and the sessions that claimed their camera (C4).
struct Transaction {
    let now: Instant
    private(set) var decisions: [Decision] = []
    /// Nodes whose apps, windows or cameras the command touched.
    private(set) var affected: Set<NodeID> = []
    /// Sessions that started, or whose app came to the foreground, in this command (C4).
    private(set) var claimants: [AppID] = []
    /// Camera systems whose pressure changed in this command (S2).
    var pressureChanged: Set<CameraSystemID> = []
    /// Apps that stopped running in this command (their role is still to be cleared, L5).
    private(set) var stopped: [AppID] = []
    /// `affectedDevices(in:)` as last worked out, and how many nodes were affected then.
    private var devicesOfAffected: (count: Int, devices: [NodeID])?

    init(now: Instant) { self.now = now }

    /// Records an event; without `rule`, the rule that governs events of its kind.
    mutating func emit(_ event: Event, rule: RuleID? = nil) { decisions.append(Decision(event, rule: rule ?? .governing(event))) }
    mutating func affect(_ node: NodeID) { affected.insert(node) }
    mutating func noteStopped(_ app: AppID) { stopped.append(app) }
    mutating func claim(_ app: AppID) {
        affected.insert(app.device)
        if !claimants.contains(app) { claimants.append(app) }
    }

    /// The affected devices plus the devices the affected displays are attached to, in id order.
    /// Settling asks for them at every step; they are worked out again only when a node was affected
    /// since (`affected` only grows, and settling moves no display).
    mutating func affectedDevices(in state: ClusterState) -> [NodeID] {
        if let devices = devicesOfAffected, devices.count == affected.count { return devices.devices }
        var devices: Set<NodeID> = []
        for node in affected {
            guard let record = state.nodes[node] else { continue }
            if record.kind == .device { devices.insert(node) } else if let device = record.attachedTo { devices.insert(device) }
        }
        let sorted = devices.sorted()
        devicesOfAffected = (affected.count, sorted)
        return sorted
    }
}
