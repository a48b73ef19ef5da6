import Testing
import CamsyncPolicy
@testable import CamsyncHistory

// MARK: 7. Audio matches the model (A1–A8)

@Suite struct AudioCheckTests {
    static let ipad: NodeID = "ipad-1"

    /// Music plays, a game mixes in (hint), a call interrupts the music and ducks nothing, the call
    /// ends (the music's interruption ends), a navigation-style ducker lowers the game.
    static func audioRun() -> Recorder {
        var r = Recorder()
        let music = AppID.on(ipad, Apps.music), game = AppID.on(ipad, Apps.game), call = AppID.on(ipad, Apps.call)
        r.run(.registerNode(deviceRegistration(ipad)), from: ipad)
        r.run(.openFullScreen(music, trigger: .user), from: ipad)
        r.run(.activateAudioSession(music), from: ipad)
        r.run(.openFullScreen(game, trigger: .user), from: ipad)
        r.run(.activateAudioSession(game), from: ipad)
        r.run(.split(call, side: .right), from: ipad)
        r.run(.activateAudioSession(call), from: ipad)
        r.run(.deactivateAudioSession(call), from: ipad)
        r.run(.setAudioCategory(call, AudioSessionConfiguration(category: .playAndRecord, duckOthers: true)), from: ipad)
        r.run(.activateAudioSession(call), from: ipad)
        r.run(.goHome(device: ipad), from: ipad)
        return r
    }

    @Test func audioRunPassesEveryCheck() {
        let history = Self.audioRun().history
        let kinds = Set(history.audio.map(\.kind))
        #expect(kinds == Set(AudioObservation.Kind.allCases), "the run tells apps every kind of audio notification: \(kinds)")
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.passed, "\(report.summary)")
        #expect((report.result(.audioMatchesModel)?.examined ?? 0) > history.audio.count)
    }

    @Test(arguments: AudioObservation.Kind.allCases)
    func notificationTheModelDoesNotExplainFails(_ kind: AudioObservation.Kind) {
        var history = Self.audioRun().history
        let flipped: [AudioObservation.Kind: AudioObservation.Kind] = [
            .interruptionBegan: .duckingBegan, .interruptionEnded: .silenceHintBegan, .silenceHintBegan: .silenceHintEnded,
            .silenceHintEnded: .silenceHintBegan, .duckingBegan: .duckingEnded, .duckingEnded: .duckingBegan,
        ]
        let index = history.audio.firstIndex { $0.kind == kind }!
        history.audio[index].kind = flipped[kind]!
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed == [.audioMatchesModel], "\(report.summary)")
        #expect(report.counterexample?.message.contains("the model has") == true)
    }

    @Test func replicaWithTwoNonMixableSessionsFails() {
        var history = Self.audioRun().history
        let music = AppID.on(Self.ipad, Apps.music), call = AppID.on(Self.ipad, Apps.call)
        history.final.replicas[0].state.apps[music]?.audioSession.isActive = true
        history.final.replicas[0].state.apps[call]?.audioSession.configuration = AudioSessionConfiguration(category: .playAndRecord)
        let report = HistoryChecker.check(history, settings: PolicySettings())
        #expect(report.failed.contains(.audioMatchesModel))
        let messages = report.result(.audioMatchesModel)?.violations.map(\.message) ?? []
        #expect(messages.contains { $0.contains("final replica") && $0.contains("A3") }, "\(messages)")
    }
}
