import CamsyncRuntime
import Foundation
import CamsyncCoordinator
import CamsyncPolicy
import CamsyncWire
import CamsyncCoordinatorCore

/// The always-available fuzz driver: a seeded random-frame generator over a corpus of valid
/// envelopes, each input run through `HostileInput.exercise` against a realistic cluster.
/// The core is reset to the base state every `resetEvery` inputs so the run keeps visiting
/// realistic states rather than drifting into an empty cluster.
public struct SeededFuzzer {
    public struct Report: Sendable, CustomStringConvertible {
        public var inputs = 0
        public var seconds = 0.0
        public var outcomes: [String: Int] = [:]
        public var mutations: [String: Int] = [:]
        public var failures: [HostileInput.Failure] = []
        public var slowestInputSeconds = 0.0
        public var largestInput = 0
        public var corpusSize = 0

        public var accepted: Int { outcomes["accepted", default: 0] }

        public var description: String {
            var lines = ["\(inputs) inputs in \(String(format: "%.2f", seconds)) s (corpus \(corpusSize), largest input \(largestInput) B, slowest \(String(format: "%.1f", slowestInputSeconds * 1000)) ms)"]
            lines.append("outcomes: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            lines.append("mutations: " + mutations.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            lines.append("failures: \(failures.count)")
            for failure in failures.prefix(5) { lines.append("  \(failure)") }
            return lines.joined(separator: "\n")
        }
    }

    public var seed: UInt64
    public var resetEvery: Int
    public var maxFailures: Int

    public init(seed: UInt64 = 0xCA5E_5EED, resetEvery: Int = 200, maxFailures: Int = 20) {
        self.seed = seed
        self.resetEvery = resetEvery
        self.maxFailures = maxFailures
    }

    /// The corpus as bytes: every envelope of `HostileCorpus.envelopes`.
    public static var corpus: [[UInt8]] { HostileCorpus.envelopes.map { $0.serializedBytes() } }

    public func run(inputs count: Int) -> Report {
        var rng = SplitMix64(seed: seed)
        let (base, _) = HostileCorpus.baseCore()
        var core = base
        var corpus = Self.corpus
        let seedCount = corpus.count
        var report = Report()
        var now = Instant(milliseconds: 1_000_000)
        var nextRequestID: UInt64 = 1_000_000
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<count {
            if index % resetEvery == 0 { core = base }
            var (bytes, label) = generate(corpus: corpus, rng: &rng)
            // Mostly fresh request ids, so inputs are decided rather than answered from the retry window.
            if rng.chance(0.9), var fields = ProtobufWire.parse(bytes), fields.contains(where: { $0.number == 10 }) {
                nextRequestID += 1
                fields.removeAll { $0.number == 3 }
                fields.append(WireField(number: 3, value: .varint(nextRequestID)))
                bytes = ProtobufWire.serialize(fields)
            }
            report.mutations[label, default: 0] += 1
            report.largestInput = max(report.largestInput, bytes.count)
            now = now.adding(milliseconds: Int64.random(in: 0...3_000, using: &rng))
            let inputStart = clock.now
            do {
                let outcome = try HostileInput.exercise(bytes, core: &core, at: now)
                try HostileInput.runDeadlines(core: &core, at: now)
                report.outcomes["\(outcome)", default: 0] += 1
                // Inputs that changed state join the corpus (bounded): later mutations start from deeper commands.
                if outcome == .accepted, label != "valid" {
                    if corpus.count < seedCount + 2_000 { corpus.append(bytes) } else {
                        corpus[seedCount + Int.random(in: 0..<2_000, using: &rng)] = bytes
                    }
                }
            } catch {
                report.outcomes["FAILURE", default: 0] += 1
                if report.failures.count < maxFailures { report.failures.append(error) }
            }
            let elapsed = inputStart.duration(to: clock.now)
            report.slowestInputSeconds = max(report.slowestInputSeconds, Self.seconds(elapsed))
            report.inputs += 1
        }
        report.seconds = Self.seconds(started.duration(to: clock.now))
        report.corpusSize = corpus.count
        return report
    }

    /// One input: a valid corpus entry (10 %), garbage or a monster (6 %), else 1–3 stacked mutations.
    func generate(corpus: [[UInt8]], rng: inout SplitMix64) -> ([UInt8], String) {
        let roll = Double.random(in: 0..<1, using: &rng)
        let base = rng.pick(corpus)
        if roll < 0.10 { return (base, "valid") }
        if roll < 0.13 { return (HostileMutator.mutate(base, corpus: corpus, kind: .garbage, rng: &rng), "garbage") }
        if roll < 0.145 { return (HostileMutator.mutate(base, corpus: corpus, kind: .deepNesting, rng: &rng), "deepNesting") }
        if roll < 0.16 { return (HostileMutator.mutate(base, corpus: corpus, kind: .hugeLength, rng: &rng), "hugeLength") }
        let kinds: [HostileMutator.Kind] = [.bitFlip, .truncate, .splice, .insertBytes, .deleteRange, .interestingByte,
                                            .fieldSwap, .fieldSwap, .fieldSwap, .varintValue, .varintValue, .varintValue,
                                            .dropField, .duplicateField, .shuffleFields, .wrongVersion, .hugeVarint]
        var bytes = base
        var labels: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let kind = rng.pick(kinds)
            labels.append(kind.rawValue)
            bytes = HostileMutator.mutate(bytes, corpus: corpus, kind: kind, rng: &rng)
        }
        return (bytes, labels[0])
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension HostileInput {
    /// The base core the libFuzzer entry copies for every input.
    static let fuzzBase: CoordinatorCore = HostileCorpus.baseCore().core

    /// libFuzzer's `LLVMFuzzerTestOneInput`: one frame against a fresh copy of the base cluster.
    /// A broken property must end the process abnormally: that is how libFuzzer learns of it and
    /// saves the input. So it prints the broken property and aborts (only in the fuzzer binary).
    public static func fuzzOne(_ data: UnsafeRawPointer?, _ size: Int) -> Int32 {
        let bytes = size > 0 && data != nil ? [UInt8](UnsafeRawBufferPointer(start: data, count: size)) : []
        var core = fuzzBase
        let now = Instant(milliseconds: 2_000_000)
        do {
            _ = try exercise(bytes, core: &core, at: now)
            try runDeadlines(core: &core, at: now.adding(milliseconds: 60_000))
        } catch {
            FileHandle.standardError.write(Data("hostile input broke a property: \(error)\n".utf8))
            abort()
        }
        return 0
    }
}
