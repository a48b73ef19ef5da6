public import CamsyncPolicy

// Keyed collections go on the wire as repeated fields sorted by key (no proto maps), so
// the same ClusterState always encodes to the same bytes, whatever order it was built in.

// MARK: - NodeRecord

extension Camsync_V1_NodeRecord {
    public init(_ record: NodeRecord) {
        self.init()
        id = record.id.rawValue
        registration = Camsync_V1_NodeRegistration(record.registration)
        alive = record.alive
        if let device = record.attachedTo { attachedTo = device.rawValue }
        stageManagerEnabled = record.stageManagerEnabled
        autoPipEnabled = record.autoPiPEnabled
        layoutDirection = Camsync_V1_LayoutDirection(record.layoutDirection)
        registeredAtMs = record.registeredAt.milliseconds
    }
}

extension NodeRecord {
    public init(wire: Camsync_V1_NodeRecord) throws(WireMappingError) {
        let id = try nodeID(wire.id, "id")
        guard wire.hasRegistration else { throw WireMappingError("registration", .missing) }
        self.init(
            id: id,
            registration: try within("registration") { () throws(WireMappingError) in try NodeRegistration(wire: wire.registration) },
            alive: wire.alive,
            attachedTo: wire.hasAttachedTo ? try nodeID(wire.attachedTo, "attached_to") : nil,
            stageManagerEnabled: wire.stageManagerEnabled,
            autoPiPEnabled: wire.autoPipEnabled,
            layoutDirection: try LayoutDirection(wire: wire.layoutDirection),
            registeredAt: Instant(milliseconds: wire.registeredAtMs)
        )
    }
}

// MARK: - Sessions, recordings, PiP

extension Camsync_V1_RecordingRecord {
    public init(_ record: RecordingRecord) {
        self.init()
        output = Camsync_V1_RecordingOutput(record.output)
        startedAtMs = record.startedAt.milliseconds
        multitaskedDuringRecording = record.multitaskedDuringRecording
    }
}

extension RecordingRecord {
    public init(wire: Camsync_V1_RecordingRecord) throws(WireMappingError) {
        self.init(output: try RecordingOutput(wire: wire.output), startedAt: Instant(milliseconds: wire.startedAtMs),
                  multitaskedDuringRecording: wire.multitaskedDuringRecording)
    }
}

extension Camsync_V1_CaptureSessionRecord {
    public init(_ record: CaptureSessionRecord) {
        self.init()
        configuration = Camsync_V1_SessionConfiguration(record.configuration)
        hardwareCost = record.hardwareCost
        multitaskingCameraAccessSupported = record.multitaskingCameraAccessSupported
        wantsToRun = record.wantsToRun
        state = Camsync_V1_SessionState(record.state)
        if let ordinal = record.preemptedAt { preemptedAt = ordinal }
        if let ordinal = record.waitingSince { waitingSince = ordinal }
        if let recording = record.recording { self.recording = Camsync_V1_RecordingRecord(recording) }
    }
}

extension CaptureSessionRecord {
    public init(wire: Camsync_V1_CaptureSessionRecord) throws(WireMappingError) {
        guard wire.hasConfiguration else { throw WireMappingError("configuration", .missing) }
        guard wire.hasState else { throw WireMappingError("state", .missing) }
        self.init(
            configuration: try within("configuration") { () throws(WireMappingError) in try SessionConfiguration(wire: wire.configuration) },
            hardwareCost: wire.hardwareCost,
            multitaskingCameraAccessSupported: wire.multitaskingCameraAccessSupported,
            wantsToRun: wire.wantsToRun,
            state: try within("state") { () throws(WireMappingError) in try SessionState(wire: wire.state) },
            preemptedAt: wire.hasPreemptedAt ? wire.preemptedAt : nil,
            waitingSince: wire.hasWaitingSince ? wire.waitingSince : nil,
            recording: wire.hasRecording
                ? try within("recording") { () throws(WireMappingError) in try RecordingRecord(wire: wire.recording) } : nil
        )
    }
}

extension Camsync_V1_PipRecord {
    public init(_ record: PiPRecord) {
        self.init()
        setup = Camsync_V1_PipControllerSetup(record.setup)
        window = Camsync_V1_PipWindowState(record.window)
        if let ordinal = record.suspendedAt { suspendedAt = ordinal }
        if let deadline = record.restoreDeadline { restoreDeadlineMs = deadline.milliseconds }
    }
}

extension PiPRecord {
    public init(wire: Camsync_V1_PipRecord) throws(WireMappingError) {
        guard wire.hasWindow else { throw WireMappingError("window", .missing) }
        self.init(
            setup: try requirePipSetup(wire.hasSetup, wire.setup, "setup"),
            window: try within("window") { () throws(WireMappingError) in try PiPWindowState(wire: wire.window) },
            suspendedAt: wire.hasSuspendedAt ? wire.suspendedAt : nil,
            restoreDeadline: wire.hasRestoreDeadlineMs ? Instant(milliseconds: wire.restoreDeadlineMs) : nil
        )
    }
}

// MARK: - AppRecord

extension Camsync_V1_AppRecord {
    public init(_ record: AppRecord) {
        self.init()
        id = Camsync_V1_AppRef(record.id)
        spec = Camsync_V1_AppSpec(record.spec)
        scene = Camsync_V1_Scene(record.scene)
        if let role = record.role { self.role = Camsync_V1_Role(role) }
        memoryFootprintMb = Int64(record.memoryFootprintMB)
        if let session = record.session { self.session = Camsync_V1_CaptureSessionRecord(session) }
        if let pip = record.pip { self.pip = Camsync_V1_PipRecord(pip) }
        audioSession = Camsync_V1_AudioSessionRecord(record.audioSession)
    }
}

extension AppRecord {
    public init(wire: Camsync_V1_AppRecord) throws(WireMappingError) {
        let id = try requireAppID(wire.hasID, wire.id, "id")
        guard wire.hasSpec else { throw WireMappingError("spec", .missing) }
        self.init(
            id: id,
            spec: try within("spec") { () throws(WireMappingError) in try AppSpec(wire: wire.spec) },
            scene: try requireScene(wire.hasScene, wire.scene, "scene"),
            role: wire.hasRole ? try Role(wire: wire.role) : nil,
            memoryFootprintMB: Int(truncatingIfNeeded: wire.memoryFootprintMb),
            session: wire.hasSession
                ? try within("session") { () throws(WireMappingError) in try CaptureSessionRecord(wire: wire.session) } : nil,
            pip: wire.hasPip ? try within("pip") { () throws(WireMappingError) in try PiPRecord(wire: wire.pip) } : nil,
            // Absent (a peer that predates audio): the declared category, inactive.
            audioSession: wire.hasAudioSession
                ? try within("audio_session") { () throws(WireMappingError) in try AudioSessionRecord(wire: wire.audioSession) } : nil
        )
    }
}

// MARK: - CameraSystemRecord

extension Camsync_V1_CameraSystemRecord {
    public init(_ record: CameraSystemRecord) {
        self.init()
        id = Camsync_V1_CameraSystemRef(record.id)
        cameras = record.cameras.map(Camsync_V1_CameraRef.init)
        pressure = Camsync_V1_SystemPressureLevel(record.pressure)
        if let holder = record.holder { self.holder = Camsync_V1_AppRef(holder) }
        lastToken = record.lastToken.value
        available = record.available
    }
}

extension CameraSystemRecord {
    public init(wire: Camsync_V1_CameraSystemRecord) throws(WireMappingError) {
        let id = try requireCameraSystemID(wire.hasID, wire.id, "id")
        var cameras: [CameraID] = []
        cameras.reserveCapacity(wire.cameras.count)
        for (index, camera) in wire.cameras.enumerated() {
            cameras.append(try requireCameraID(true, camera, "cameras[\(index)]"))
        }
        self.init(
            id: id,
            cameras: cameras,
            pressure: try SystemPressureLevel(wire: wire.pressure, field: "pressure"),
            holder: wire.hasHolder ? try requireAppID(true, wire.holder, "holder") : nil,
            lastToken: GrantToken(wire.lastToken),
            available: wire.available
        )
    }
}

// MARK: - ClusterState

extension Camsync_V1_ClusterState {
    /// Every collection sorted by its key: deterministic bytes for the same state.
    public init(_ state: ClusterState) {
        self.init()
        nodes = state.nodes.keys.sorted().map { Camsync_V1_NodeRecord(state.nodes[$0]!) }
        apps = state.apps.keys.sorted().map { Camsync_V1_AppRecord(state.apps[$0]!) }
        cameraSystems = state.cameraSystems.keys.sorted().map { Camsync_V1_CameraSystemRecord(state.cameraSystems[$0]!) }
        recordingAlertShown = state.recordingAlertShown.sorted().map(\.rawValue)
        ordinal = state.ordinal
    }
}

extension ClusterState {
    /// Accepts entries in any order; rejects invalid entries and duplicate keys.
    public init(wire: Camsync_V1_ClusterState) throws(WireMappingError) {
        self.init()
        nodes.reserveCapacity(wire.nodes.count)
        for (index, entry) in wire.nodes.enumerated() {
            let record = try within("nodes[\(index)]") { () throws(WireMappingError) in try NodeRecord(wire: entry) }
            if nodes.updateValue(record, forKey: record.id) != nil {
                throw WireMappingError("nodes[\(index)].id", .duplicate(record.id.description))
            }
        }
        apps.reserveCapacity(wire.apps.count)
        for (index, entry) in wire.apps.enumerated() {
            let record = try within("apps[\(index)]") { () throws(WireMappingError) in try AppRecord(wire: entry) }
            if apps.updateValue(record, forKey: record.id) != nil {
                throw WireMappingError("apps[\(index)].id", .duplicate(record.id.description))
            }
        }
        cameraSystems.reserveCapacity(wire.cameraSystems.count)
        for (index, entry) in wire.cameraSystems.enumerated() {
            let record = try within("camera_systems[\(index)]") { () throws(WireMappingError) in try CameraSystemRecord(wire: entry) }
            if cameraSystems.updateValue(record, forKey: record.id) != nil {
                throw WireMappingError("camera_systems[\(index)].id", .duplicate(record.id.description))
            }
        }
        for (index, raw) in wire.recordingAlertShown.enumerated() {
            let device = try nodeID(raw, "recording_alert_shown[\(index)]")
            if !recordingAlertShown.insert(device).inserted {
                throw WireMappingError("recording_alert_shown[\(index)]", .duplicate(raw))
            }
        }
        ordinal = wire.ordinal
    }
}
