import CamsyncCoordinator
import CamsyncHostile
import CamsyncPolicy
import CamsyncWire
import Testing

/// Found by libFuzzer (`make fuzz`, first minute): a live device that registers again with
/// Stage Manager off (or not supported) keeps its apps' stage windows, which breaks L3
/// ("a stage window with Stage Manager off"). The command is valid and comes from the node
/// itself, so the coordinator accepts it and publishes a state that fails `invariantViolations`.
@Suite("Hostile input: findings in the engine")
struct ReRegistrationTests {
    @Test("re-registering a live device with Stage Manager off leaves stage windows behind (L3)")
    func reRegisterWithoutStageManager() {
        var (core, _) = HostileCorpus.baseCore()
        #expect(core.state.apps.values.contains { if case .stageWindow = $0.scene { true } else { false } })
        let registration = HostileCorpus.deviceRegistration(HostileCorpus.ipad1, os: 17, stageManager: false)
        let (outcome, _) = core.handle(.registerNode(registration), from: "ipad-1", requestID: 77, isAdmin: false,
                                       at: Instant(milliseconds: 9_000_000))
        guard case .accepted = outcome else { Issue.record("refused: \(outcome)"); return }
        let violations = core.state.invariantViolations(settings: core.engine.settings)
        // Fixed: the engine sends stage windows to the background when Stage Manager goes away (L3).
        #expect(violations.isEmpty, "\(violations)")
    }
}
