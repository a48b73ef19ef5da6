import ArgumentParser
import CamsyncHostile
import Foundation

struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run the seeded hostile-input fuzzer (decode → map → authorise → apply, invariants checked), or write its corpus.",
        discussion: """
            Each input is one frame run through HostileInput.exercise against a realistic cluster \
            (two iPads, a display, running sessions, PiP). Exits non-zero on a broken property. \
            `--write-corpus DIR` writes the seed corpus (one file per valid envelope) for libFuzzer \
            (`make fuzz`). See docs/HOSTILE.md.
            """)

    @Option(help: "Inputs to generate.") var inputs = 100_000
    @Option(help: "Seed of the generator.") var seed: UInt64 = 0xCA5E_5EED
    @Option(help: "Write the seed corpus into this directory and exit.") var writeCorpus: String?

    func run() throws {
        if let directory = writeCorpus {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (index, bytes) in SeededFuzzer.corpus.enumerated() {
                try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/seed-\(String(format: "%03d", index))"))
            }
            print("wrote \(SeededFuzzer.corpus.count) corpus files to \(directory)")
            return
        }
        let report = SeededFuzzer(seed: seed).run(inputs: inputs)
        print(report)
        if !report.failures.isEmpty { throw ExitCode(1) }
    }
}
