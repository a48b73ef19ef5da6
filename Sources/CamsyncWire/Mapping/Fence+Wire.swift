public import CamsyncPolicy

// MARK: - FenceRecord ↔ FenceRecord (node status, control socket)

extension Camsync_V1_FenceRecord {
    /// The wire record names no node: the `NodeStatus` that carries it does.
    public init(_ record: FenceRecord) {
        self.init()
        sequence = record.sequence
        wallTimeMs = record.at.milliseconds
        system = Camsync_V1_CameraSystemRef(record.decision.system)
        app = Camsync_V1_AppRef(record.decision.app)
        token = record.decision.token.value
        fromSnapshot = record.decision.fromSnapshot
        switch record.decision.kind {
        case .allowed: decision = .allowed
        case .refusedStale(let highest):
            decision = .refusedStale
            self.highest = highest.value
        case .released: decision = .released
        }
    }
}

extension FenceRecord {
    /// A record of `node`'s fence (the node of the `NodeStatus` carrying it). `decision`, `system`
    /// and `app` are required; `highest` is read for refusals only.
    public init(wire: Camsync_V1_FenceRecord, node: NodeID) throws(WireMappingError) {
        let kind: FenceDecision.Kind = try decodeEnum(wire.decision, "decision") { decision in
            switch decision {
            case .allowed: .allowed
            case .refusedStale: .refusedStale(highest: GrantToken(wire.highest))
            case .released: .released
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
        let decision = FenceDecision(
            kind, system: try requireCameraSystemID(wire.hasSystem, wire.system, "system"),
            app: try requireAppID(wire.hasApp, wire.app, "app"), token: GrantToken(wire.token),
            fromSnapshot: wire.fromSnapshot)
        self.init(node: node, decision: decision, sequence: wire.sequence, at: Instant(milliseconds: wire.wallTimeMs))
    }
}
