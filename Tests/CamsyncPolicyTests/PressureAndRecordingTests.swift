import Testing
@testable import CamsyncPolicy

/// S1–S3 (seed 000) and R1 (seeds 000, 002).
@Suite struct PressureAndRecordingTests {
    let ipad: NodeID = "ipad"
    var notes: AppID { .on(ipad, Apps.notes) }
    var scanner: AppID { .on(ipad, Apps.scanner) }

    /// S1 levels are ordered; S2 advice at serious / critical [policy: 30 / 15 fps]; S3 shutdown → reason 5,
    /// back to nominal → the interruption ends.
    @Test func s1_s2_s3_pressureLifecycle() {
        #expect(SystemPressureLevel.allCases == SystemPressureLevel.allCases.sorted())
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        #expect(h.ok(.setPressure(builtIn(ipad), .fair)) == [.pressureChanged(builtIn(ipad), .fair)])
        #expect(h.ok(.setPressure(builtIn(ipad), .serious))
                == [.pressureChanged(builtIn(ipad), .serious), .throttleAdvised(builtIn(ipad), notes, maxFrameRate: 30)])
        #expect(h.ok(.setPressure(builtIn(ipad), .critical)).contains(.throttleAdvised(builtIn(ipad), notes, maxFrameRate: 15)))
        let shutdown = h.ok(.setPressure(builtIn(ipad), .shutdown))
        #expect(shutdown.contains(.sessionWasInterrupted(notes, .videoDeviceNotAvailableDueToSystemPressure)))
        #expect(h.session(notes) == .interrupted(.videoDeviceNotAvailableDueToSystemPressure))
        let nominal = h.ok(.setPressure(builtIn(ipad), .nominal))
        #expect(nominal.contains(.sessionInterruptionEnded(notes)))
        #expect(h.session(notes) == .running)
        #expect(h.ok(.setPressure(builtIn(ipad), .nominal)).isEmpty)
    }

    /// C2 order: reason 4 comes before reason 5 (multitasking checked before pressure).
    @Test func c2_multitaskingBeforePressure() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        h.ok(.setPressure(builtIn(ipad), .shutdown))
        h.ok(.split(scanner, side: .right))
        #expect(h.session(notes) == .interrupted(.videoDeviceNotAvailableWithMultipleForegroundApps))
    }

    /// R1 — seeds 000, 002: the lower-quality alert after a recording during multitasking: once per device, for all
    /// apps, ever; another device gets its own.
    @Test func r1_alertOncePerDevice() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.registerNode(deviceRegistration("other")))
        func record(_ app: AppID, _ partner: AppID, _ h: inout Harness) -> [Event] {
            h.runCamera(app, multitasking: true)
            h.ok(.startRecording(app, .movieFile))
            h.ok(.split(partner, side: .right))
            #expect(h.session(app) == .running)
            h.ok(.sendToBackground(partner, cause: .homeGesture))
            return h.ok(.stopRecording(app))
        }
        let first = record(notes, scanner, &h)
        #expect(first.contains(.recordingFinished(notes, .movieFile, multitaskedDuringRecording: true)))
        #expect(first.contains(.recordingQualityAlert(device: ipad, app: notes)))
        h.ok(.stopSession(notes))
        let second = record(scanner, notes, &h)
        #expect(second.contains(.recordingFinished(scanner, .movieFile, multitaskedDuringRecording: true)))
        #expect(!second.contains { if case .recordingQualityAlert = $0 { true } else { false } })
        let elsewhere = record(.on("other", Apps.notes), .on("other", Apps.scanner), &h)
        #expect(elsewhere.contains(.recordingQualityAlert(device: "other", app: .on("other", Apps.notes))))
        // R1 survives the device's death and return (K3: it is part of the journaled state).
        h.ok(.declareNodeDead(ipad))
        h.ok(.registerNode(deviceRegistration(ipad)))
        #expect(h.state.recordingAlertShown.contains(ipad))
    }

    /// R1: a recording without multitasking shows no alert; a recording ends when its session is interrupted.
    @Test func r1_noMultitaskingNoAlert_interruptionFinishesRecording() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.runCamera(notes)
        h.ok(.startRecording(notes, .assetWriter))
        let split = h.ok(.split(scanner, side: .right))  // no access → interrupted (4) → recording ends
        #expect(split.contains(.recordingFinished(notes, .assetWriter, multitaskedDuringRecording: false)))
        #expect(h.state.recordingAlertShown.isEmpty)
        #expect(h.reject(.startRecording(notes, .movieFile))?.code == .sessionNotRunning)
    }
}
