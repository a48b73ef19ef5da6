import CamsyncHistory
@testable import CamsyncSimulator
@testable import CamsyncWorkload
import CamsyncNode
import CamsyncPolicy
import Testing

/// The soak's workload reaches the audio cases its coverage check expects without depending on
/// timing: its fixed prologue, applied by the engine to the soak's cluster as it starts, tells the
/// apps what the check wants, through the same path a node logs it (`AppFacingEvent` → the history
/// entry → `AudioObservation`).
@Suite struct SoakWorkloadTests {
    @Test("the soak's audio prologue, from a fresh cluster, tells apps interruptionBegan and both silence hints (A3, A5)")
    func audioPrologueReachesTheCoverage() throws {
        var engine = PolicyEngine()
        let at = Instant(milliseconds: 1_000)
        for config in try SimTopology.nodeConfigs(count: SoakTopology.devices.count + SoakTopology.displays.count) {
            guard case .success = engine.apply(.registerNode(config.registration), at: at) else {
                Issue.record("\(config.id) did not register")
                return
            }
        }
        var sequence = UInt64(engine.state.nodes.count)
        var seen: Set<AudioObservation.Kind> = []
        for (node, command) in Workload.audioPrologue {
            sequence += 1
            let events: [Event]
            switch engine.apply(command, at: at) {
            case .success(let applied): events = applied
            case .failure(let rejection):
                Issue.record("\(node) \(command) refused: \(rejection)")
                return
            }
            for event in AppFacingEvent.from(events, sequence: sequence, device: node) {
                guard case .app(let node, _, let sequence, let app, let name, let details) = NodeHistoryEntry(app: event, node: node, at: at),
                      let observation = AudioObservation(node: node, app: app, sequence: sequence, name: name, details: details)
                else { continue }
                seen.insert(observation.kind)
            }
        }
        #expect(seen.isSuperset(of: Workload.audioCoverage), "the prologue told the apps \(seen)")
    }
}
