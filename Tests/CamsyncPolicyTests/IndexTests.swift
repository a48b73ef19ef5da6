import Testing
@testable import CamsyncPolicy

/// The engine's `StateIndex` is derived data: after every command (accepted or rejected) it equals
/// the index built from scratch from the state, and it never takes part in equality or hashing.
@Suite struct IndexTests {
    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE])
    func indexStaysInStepWithState(_ seed: UInt64) {
        var generator = CommandGenerator(seed: seed)
        var engine = PolicyEngine(settings: PolicySettings(stageWindowLimitPerScreen: 3, backgroundMediaMemoryLimitMB: 250))
        var now = Instant.zero
        for node in generator.devices + generator.displays {
            _ = engine.apply(.registerNode(generator.registration(node)), at: now)
        }
        #expect(engine.index == StateIndex(engine.state))
        for step in 0..<3_000 {
            now = now.adding(milliseconds: Int64(generator.rng.next() % 700))
            let command: Command
            if let (deadline, due) = engine.nextDeadline(), deadline <= now, generator.chance(50) {
                command = due
            } else {
                command = generator.next()
            }
            _ = engine.apply(command, at: now)
            if engine.index != StateIndex(engine.state) {
                Issue.record("seed \(seed) step \(step) \(command): the index is out of step with the state")
                return
            }
        }
    }

    /// An engine created from another's state (a snapshot, a replica) is equal to it and continues
    /// identically.
    @Test func engineFromStateContinuesIdentically() {
        var generator = CommandGenerator(seed: 7)
        var engine = PolicyEngine()
        var now = Instant.zero
        for node in generator.devices + generator.displays {
            _ = engine.apply(.registerNode(generator.registration(node)), at: now)
        }
        var commands: [Command] = []
        for _ in 0..<2_000 {
            now = now.adding(milliseconds: 5)
            commands.append(generator.next())
            _ = engine.apply(commands.last!, at: now)
        }
        var copy = PolicyEngine(settings: engine.settings, state: engine.state)
        #expect(copy == engine)
        #expect(copy.hashValue == engine.hashValue)
        for _ in 0..<2_000 {
            now = now.adding(milliseconds: 5)
            let command = generator.next()
            let original = engine.apply(command, at: now)
            let replayed = copy.apply(command, at: now)
            #expect(original == replayed)
        }
        #expect(copy == engine)
        #expect(copy.index == engine.index)
    }
}
