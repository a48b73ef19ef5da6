import ArgumentParser
import CamsyncScenario
import Foundation

struct CtlScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Run scenario files (docs/SCENARIOS.md).",
        subcommands: [CtlScenarioRunCommand.self])
}

struct CtlScenarioRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenario files against a live cluster, or with --local an embedded one; non-zero exit on any failure.",
        discussion: "Example: camsync ctl scenario run --local scenarios/*.yaml")

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "Start each scenario's own cluster (its topology) on this machine, and stop it afterwards.") var local = false
    @Flag(help: "Print one JSON object per scenario.") var json = false
    @Argument(help: "Scenario files.") var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one scenario file, e.g. scenarios/camera-arbitration.yaml") }
    }

    func run() throws {
        let mode: ScenarioRunner.Mode
        if local {
            mode = .local(executable: currentExecutable())
        } else {
            let resolved = try cluster.resolve()
            let leader = resolved.commandEndpoints.count > 1 ? try resolved.leaderCommandEndpoint() : resolved.commandEndpoint
            mode = .remote(RemoteCluster(commands: leader, events: resolved.eventEndpoint,
                                         controls: resolved.controlEndpoints, curve: resolved.curve))
        }
        var failed = 0
        for file in files {
            let scenario: Scenario
            do {
                scenario = try Scenario(path: file)
            } catch {
                print("\(file): \(error)")
                failed += 1
                continue
            }
            let runner = ScenarioRunner(mode: mode)
            if !json {
                print("▶ \(scenario.name) (\(scenario.rules.joined(separator: ", ")))")
                runner.progress = { print("  \($0)") }
            }
            let report = runner.run(scenario)
            if json {
                let object: [String: Any] = [
                    "name": report.name, "file": file, "passed": report.passed, "seconds": report.seconds,
                    "rules": report.rules, "failure": report.passed ? NSNull() : report.failureText,
                    "runDirectory": report.runDirectory.map { $0 as Any } ?? NSNull(),
                ]
                if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                    print(String(decoding: data, as: UTF8.self))
                }
            } else {
                print(report.passed ? "✔ \(scenario.name) passed in \(String(format: "%.1f", report.seconds)) s"
                                    : "✘ \(scenario.name) failed:\n\(report.failureText)"
                                      + (report.runDirectory.map { "\n  run directory kept (every process's log): \($0)" } ?? ""))
            }
            if !report.passed { failed += 1 }
        }
        if !json { print("\(files.count - failed) passed, \(failed) failed") }
        if failed > 0 { throw ExitCode(1) }
    }
}
