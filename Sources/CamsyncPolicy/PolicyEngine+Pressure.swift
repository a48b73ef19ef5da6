/// System pressure per camera system (S1–S3).
extension PolicyEngine {
    /// S1: the hosting node reports a level. S2: at serious/critical the holder gets throttle
    /// advice (emitted by arbitration, so a holder granted later under pressure gets it too).
    /// S3: at shutdown every session is ineligible (C2.5); below it, C6 decides who runs.
    mutating func setPressure(_ systemID: CameraSystemID, _ level: SystemPressureLevel, _ tx: inout Transaction) throws(Rejection) {
        guard let system = state.cameraSystems[systemID] else { throw Rejection(.unknownCamera, "unknown camera system \(systemID)") }
        guard state.isAlive(systemID.host) else { throw Rejection(.nodeNotAlive, "host \(systemID.host) is not alive") }
        if system.pressure == level { return }
        state.cameraSystems[systemID]?.pressure = level
        tx.pressureChanged.insert(systemID)
        tx.affect(systemID.host)
        if let device = state.arbitrationDevice(of: systemID) { tx.affect(device) }
        tx.emit(.pressureChanged(systemID, level))
    }
}
