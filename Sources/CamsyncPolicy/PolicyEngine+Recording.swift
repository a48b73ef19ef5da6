/// Recording and the lower-quality alert (R1).
extension PolicyEngine {
    mutating func startRecording(_ id: AppID, _ output: RecordingOutput, _ tx: inout Transaction) throws(Rejection) {
        let app = try runningApp(id)
        guard let session = app.session else { throw Rejection(.noSession, "\(id) has no capture session") }
        guard session.state == .running else { throw Rejection(.sessionNotRunning, "the session of \(id) is not running") }
        guard session.recording == nil else { throw Rejection(.illegalState, "\(id) is already recording") }
        let multitasking = state.isMultitasking(among: index.runningApps(of: id.device))
        let recording = RecordingRecord(output: output, startedAt: tx.now, multitaskedDuringRecording: multitasking)
        state.updateApp(id) { $0.session?.recording = recording }
        tx.affect(id.device)
        tx.emit(.recordingStarted(id, output))
    }

    mutating func stopRecording(_ id: AppID, _ tx: inout Transaction) throws(Rejection) {
        let app = try existingApp(id)
        guard app.session?.recording != nil else { throw Rejection(.illegalState, "\(id) is not recording") }
        finishRecording(id, &tx)
    }

    /// R1: a finished recording during which the device multitasked shows the alert — once per
    /// device, for all apps, ever (`recordingAlertShown` is part of the journaled state).
    mutating func finishRecording(_ id: AppID, _ tx: inout Transaction) {
        guard let recording = state.apps[id]?.session?.recording else { return }
        state.updateApp(id) { $0.session?.recording = nil }
        tx.emit(.recordingFinished(id, recording.output, multitaskedDuringRecording: recording.multitaskedDuringRecording))
        if recording.multitaskedDuringRecording && !state.recordingAlertShown.contains(id.device) {
            state.recordingAlertShown.insert(id.device)
            tx.emit(.recordingQualityAlert(device: id.device, app: id))
        }
    }

    /// After arbitration: a recording whose session still runs notes multitasking (R1);
    /// a recording whose session no longer runs (stopped, interrupted) finishes [policy:
    /// AVCaptureMovieFileOutput ends a recording when its session is interrupted].
    mutating func updateRecordings(devices: [NodeID], _ tx: inout Transaction) {
        for device in devices {
            let apps = index.runningApps(of: device)
            // Whether the device multitasks is asked only when it has a recording; finishing one
            // does not change it.
            var multitasking: Bool?
            for id in apps {
                guard let session = state.apps[id]?.session, let recording = session.recording else { continue }
                if session.state == .running {
                    if multitasking == nil { multitasking = state.isMultitasking(among: apps) }
                    if multitasking == true && !recording.multitaskedDuringRecording {
                        state.updateApp(id) { $0.session?.recording?.multitaskedDuringRecording = true }
                    }
                } else {
                    finishRecording(id, &tx)
                }
            }
        }
    }
}
