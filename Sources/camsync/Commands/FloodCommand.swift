import ArgumentParser
import CamsyncHostile
import Foundation

struct FloodCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood",
        abstract: "Throw a million malformed or adversarial frames at a real coordinator and measure how it holds up.",
        discussion: """
            Starts a coordinator and two nodes from this binary in a temp dir, lets a good client \
            (admin: set_auto_pip and snapshot requests, alternating) run alone, then floods the \
            coordinator's ROUTER from several pipelined DEALERs with garbage, truncated envelopes, \
            wrong versions, multi-frame messages, invalid commands, impossible references, unknown \
            senders, impersonations and unexpected bodies, plus frames over MAXMSGSIZE from fresh \
            sockets; then the good client runs alone again. Prints frames by kind, replies by code, \
            the good client's latency before/during/after, and the coordinator's RSS. See docs/HOSTILE.md. \
            Exits non-zero when a bad frame went unanswered or was answered wrongly, the good client \
            failed, or the coordinator died.
            """)

    @Option(help: "Adversarial frames to send (oversized ones not included).") var frames = 1_000_000
    @Option(help: "Pipelined DEALER sockets sending them.") var senders = 2
    @Option(help: "Frames over MAXMSGSIZE (1 MiB), each from a fresh socket.") var oversized = 100
    @Option(help: "Most unanswered frames per sender.") var window = 10_000
    @Option(help: "Pause between the good client's requests, in milliseconds.") var goodIntervalMs = 10
    @Option(help: "Seconds the good client runs alone before and after the flood.") var quietSeconds = 3.0
    @Option(help: "Also send the huge-reference kind: unknown apps with bundle ids of this many bytes (0 = off).")
    var hugeReferenceBytes = 0
    @Option(help: "Weight of the huge-reference kind (the other kinds weigh 1–12, 100 in all).") var hugeReferenceWeight = 10
    @Option(help: "Write the report as JSON to this file too.") var json: String?
    @Flag(help: "Keep the run directory (logs, journal).") var keep = false

    func validate() throws {
        guard frames >= 0, senders >= 1, oversized >= 0, window >= 1, goodIntervalMs >= 0, quietSeconds >= 0 else {
            throw ValidationError("counts must be non-negative, --senders and --window at least 1")
        }
    }

    func run() throws {
        var options = FloodOptions()
        options.frames = frames
        options.senders = senders
        options.oversized = oversized
        options.window = window
        options.goodIntervalMilliseconds = goodIntervalMs
        options.quietSeconds = quietSeconds
        options.hugeReferenceBytes = hugeReferenceBytes
        options.hugeReferenceWeight = hugeReferenceWeight
        let report = try Flood.runLocal(executable: currentExecutable(), options: options, keepRunDirectory: keep) { line in
            FileHandle.standardError.write(Data("flood: \(line)\n".utf8))
        }
        print(report)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
        let goodFailures = report.good.values.map(\.failed).reduce(0, +)
        if !report.coordinatorAlive || report.unanswered > 0 || !report.unexpectedReplies.isEmpty || goodFailures > 0 {
            throw ExitCode(1)
        }
    }
}
