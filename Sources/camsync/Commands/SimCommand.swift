import CamsyncRuntime
import ArgumentParser
import CamsyncCoordinator
import CamsyncSimulator
import Foundation

struct SimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Simulate a whole cluster deterministically: one seed, one run, byte for byte.",
        discussion: """
            Runs the real coordinator cores and node sessions through a simulated network, etcd (or \
            journal) and clocks, with faults the seed chooses: coordinator crash, pause past its lease, \
            partitions (leader from etcd, leader from nodes, a node from every coordinator), etcd losing \
            quorum or slowing, node crash and pause, lost, duplicated, reordered and delayed messages. \
            Then the faults heal and the cluster must converge and grant a fresh claim. The soak's \
            history checker and the simulator's own oracle judge every run; a failing seed prints the \
            command that replays it. See docs/TESTING.md.

            Examples:
              camsync sim --seed 7 --trace
              camsync sim --seeds 1-200
              camsync sim --seeds 1-20 --plant ack-before-durable
            """)

    @Option(help: "One seed to run.") var seed: UInt64?
    @Option(help: "A range of seeds to run, FIRST-LAST.") var seeds: String?
    @Option(help: "ha (three coordinators on the simulated etcd) or embedded (one coordinator and its journal).")
    var mode = "ha"
    @Option(help: "Coordinators in HA mode.") var coordinators = 3
    @Option(help: "Nodes (six at least: the soak's iPads and displays; more are iPads).") var nodes = 6
    @Option(help: "Workload clients.") var clients = 2
    @Option(help: "Monitors asking every coordinator they follow for the whole state once a second, together.") var observers = 0
    @Option(help: "Simulated seconds of workload with faults.") var faultSeconds: Double = 30
    @Option(help: "Simulated seconds to converge once the faults heal.") var livenessSeconds: Double = 15
    @Flag(help: "No faults (the workload only).") var noFaults = false
    @Option(help: "Plant a bug (\(PlantedBug.allCases.map(\.rawValue).joined(separator: ", "))): the run should fail.")
    var plant: String?
    @Flag(help: "Print every delivery and fault with its simulated time.") var trace = false
    @Flag(help: "Stop at the first failing seed.") var stopOnFailure = false

    func validate() throws {
        guard SimulationOptions.Mode(rawValue: mode) != nil else { throw ValidationError("--mode is ha or embedded, not '\(mode)'") }
        if let plant, PlantedBug(rawValue: plant) == nil {
            throw ValidationError("--plant: one of \(PlantedBug.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard observers >= 0 else { throw ValidationError("--observers cannot be negative") }
        if seed != nil, seeds != nil { throw ValidationError("--seed or --seeds, not both") }
        if let seeds, Self.range(seeds) == nil { throw ValidationError("--seeds FIRST-LAST, e.g. 1-100") }
    }

    static func range(_ text: String) -> ClosedRange<UInt64>? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let first = UInt64(parts[0]), let last = UInt64(parts[1]), first <= last else { return nil }
        return first...last
    }

    func run() throws {
        let batch = seeds.flatMap(Self.range) ?? (seed ?? 1)...(seed ?? 1)
        let started = Date()
        var failed: [UInt64] = []
        var simulated: Int64 = 0
        for seed in batch {
            let options = SimulationOptions(
                seed: seed, mode: SimulationOptions.Mode(rawValue: mode) ?? .highAvailability, coordinators: coordinators,
                nodes: nodes, clients: clients, observers: observers, faultSeconds: faultSeconds, livenessSeconds: livenessSeconds, faults: !noFaults,
                plantedBug: plant.flatMap(PlantedBug.init(rawValue:)), trace: trace)
            let result = try Simulation(options: options).run()
            simulated += result.simulatedMilliseconds
            if trace { result.traceLines.forEach { emit($0) } }
            if batch.count == 1 || !result.passed { emit(result.summary) }
            if !result.passed {
                failed.append(seed)
                if stopOnFailure { break }
            }
        }
        let wall = Date().timeIntervalSince(started)
        if batch.count > 1 {
            emit("\(batch.count - failed.count) passed, \(failed.count) failed"
                 + (failed.isEmpty ? "" : " (seeds \(failed.map(String.init).joined(separator: " ")))"))
        }
        emit(String(format: "simulated %.1f s in %.1f s of wall time: %.0f× real time", Double(simulated) / 1000, wall,
                    Double(simulated) / 1000 / max(wall, 0.001)))
        if !failed.isEmpty { throw ExitCode(1) }
    }
}
