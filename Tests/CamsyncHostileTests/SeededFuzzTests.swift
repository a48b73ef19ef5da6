import CamsyncRuntime
import CamsyncCoordinator
import CamsyncHostile
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Testing

/// CPU-bound for a minute or two in a debug build beside every other suite of `make test` (on threads
/// of their own, so they never hold the cooperative pool): the time limits only catch a hang.
@Suite("Hostile input: seeded fuzzing of decode → map → authorise → apply", .ownThreads)
struct SeededFuzzTests {
    @Test("the base cluster builds without a refusal and satisfies every invariant")
    func baseState() {
        let (core, rejected) = HostileCorpus.baseCore()
        #expect(rejected.isEmpty, "\(rejected)")
        #expect(core.state.invariantViolations(settings: core.engine.settings).isEmpty)
        #expect(core.state.nodes.count == 3)
        #expect(core.state.cameraSystems.values.contains { $0.holder != nil })
        #expect(core.state.apps.values.contains { if case .active = $0.pip?.window { true } else { false } })
    }

    @Test("every corpus envelope is handled cleanly, and the corpus covers every command case")
    func corpus() throws {
        let (base, _) = HostileCorpus.baseCore()
        var outcomes: [String: Int] = [:]
        for envelope in HostileCorpus.envelopes {
            var core = base
            let outcome = try HostileInput.exercise(envelope.serializedBytes(), core: &core, at: Instant(milliseconds: 9_000_000))
            outcomes["\(outcome)", default: 0] += 1
        }
        #expect(Set(HostileCorpus.commands.map { "\($0)".prefix(while: { $0 != "(" }) }).count == 39)
        // Valid commands are accepted, impossible references refused, other bodies answered.
        #expect(outcomes["accepted", default: 0] >= 39)
        #expect(outcomes["refused(rejected)", default: 0] > 10)
        #expect(outcomes["refused(unknownNode)", default: 0] >= 1)
        #expect(outcomes["refused(forbidden)", default: 0] >= 1)
        #expect(outcomes["unexpectedMessage", default: 0] == 6)
        #expect(outcomes["snapshot"] == 1 && outcomes["heartbeat"] == 1)
    }

    @Test("30,000 seeded hostile inputs: no crash, no hang, no broken invariant, every input answered cleanly",
          .timeLimit(.minutes(5)))
    func seededRun() {
        let report = SeededFuzzer(seed: 0x5EED_0001).run(inputs: 30_000)
        print(report)
        #expect(report.failures.isEmpty, "\(report.failures.prefix(3))")
        #expect(report.inputs == 30_000)
        // It reaches every stage: decoding errors, mapping errors, refusals and accepted commands.
        #expect(report.outcomes["undecodable(malformed)", default: 0] > 1_000)
        #expect(report.outcomes["undecodable(unsupportedVersion)", default: 0] > 100)
        #expect(report.outcomes["invalidCommand", default: 0] > 300)
        #expect(report.outcomes["refused(rejected)", default: 0] > 500)
        #expect(report.accepted > 1_000)
        #expect(report.slowestInputSeconds < 2)
    }

    @Test("mutated inputs sent as the admin (past every authorisation check) hold up too", .timeLimit(.minutes(4)))
    func asAdmin() throws {
        var rng = SplitMix64(seed: 7)
        let corpus = SeededFuzzer.corpus
        let (base, _) = HostileCorpus.baseCore()
        var core = base
        var accepted = 0
        for index in 0..<5_000 {
            if index % 100 == 0 { core = base }
            let kind = rng.pick(HostileMutator.Kind.allCases)
            var bytes = HostileMutator.mutate(rng.pick(corpus), corpus: corpus, kind: kind, rng: &rng)
            if var fields = ProtobufWire.parse(bytes) {
                fields.removeAll { $0.number == 2 || $0.number == 3 }
                fields.append(WireField(number: 2, value: .bytes(Array(Envelope.adminSender.utf8), nested: nil)))
                fields.append(WireField(number: 3, value: .varint(UInt64(index + 1))))
                bytes = ProtobufWire.serialize(fields)
            }
            if try HostileInput.exercise(bytes, core: &core, at: Instant(milliseconds: 5_000_000 + Int64(index))) == .accepted {
                accepted += 1
            }
        }
        #expect(accepted > 100)
    }

    @Test("deep nesting, huge varints and huge lengths are clean decoding errors")
    func monsters() throws {
        var rng = SplitMix64(seed: 99)
        let good = Envelope.request(.goHome(device: HostileCorpus.ipad1), sender: "ipad-1", requestID: 5).serializedBytes()
        for depth in [100, 10_000, 100_000] {
            for _ in 0..<4 {
                var core = HostileCorpus.baseCore().core
                let bytes = HostileMutator.deepNesting(around: good, depth: depth, rng: &rng)
                _ = try HostileInput.exercise(bytes, core: &core, at: Instant(milliseconds: 1))
            }
        }
        for kind in [HostileMutator.Kind.hugeVarint, .hugeLength, .wrongVersion] {
            for _ in 0..<50 {
                var core = HostileCorpus.baseCore().core
                _ = try HostileInput.exercise(HostileMutator.mutate(good, corpus: [good], kind: kind, rng: &rng),
                                              core: &core, at: Instant(milliseconds: 1))
            }
        }
    }
}
