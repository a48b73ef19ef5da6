import ArgumentParser
import CamsyncSoakDriver
import Foundation

struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Run a real cluster under a seeded workload and faults, record the history, and check it.",
        discussion: """
            Checks: no two sessions capture one camera at overlapping times (C1, at the resource); tokens \
            strictly increase per camera system (C8); every acknowledged command survives restarts (K3, K5); \
            the R1 alert at most once per device; replicas converge after the faults stop; every C2 reason \
            matches the engine's model; the audio invariants (A1–A8) hold through the replay and on every \
            replica, and every AVAudioSession notification a node gave matches the model. Exit status 1 on \
            any violation.

            In HA mode (--ha) the checker also judges leadership under partitions (K6): a leader cut from \
            etcd stops leading within its lease, a later term acknowledges meanwhile, and every replica \
            catches up after each heal.

            Examples:
              camsync soak --duration 120 --seed 7
              camsync soak --ha --netns deploy/netns/lab.sh --duration 600 --seed 1
            """)

    @Option(help: "Seconds of workload and faults.") var duration: Double = 60
    @Option(help: "Seed of the workload and the fault schedule.") var seed: UInt64 = 1
    @Option(help: "Concurrent workload clients.") var clients = 2
    @Option(help: "Seconds between faults.") var faultEvery: Double = 3
    @Option(help: "Keep the run directory (logs, journal, histories) here.") var runDir: String?
    @Flag(help: "Print the history as JSON to RUNDIR/history.json too.") var saveHistory = false
    @Option(help: "Run every process in its own network namespace with this lab script (deploy/netns/lab.sh) and add partitions to the faults (needs root).")
    var netns: String?
    @Flag(help: "HA mode (SPEC K6): three coordinators on a 3-member etcd cluster; faults add kill -9 and SIGSTOP of the leader and kill -9 of etcd members. With --netns, every etcd member, coordinator and node runs in a namespace of its own, and half the faults cut links: the leader from etcd, the leader from its nodes, an etcd minority with and without the leader, a coordinator from one etcd member, a node from every coordinator, and a one-way cut of the leader's packets to etcd.")
    var ha = false
    @Option(help: .hidden) var plantBug: String?

    func run() throws {
        if let netns, !NetworkLab.isAvailable(script: netns) {
            throw ValidationError("--netns needs root and network namespaces (`\(netns) check` failed)")
        }
        if ha, let netns, !NetworkLab.cutsAvailable(script: netns) {
            throw ValidationError("--ha --netns cuts links with nftables in the namespaces (`\(netns) cut-check` failed; apt-get install -y nftables)")
        }
        let directory = runDir ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("camsync-soak-\(UUID().uuidString.prefix(8))").path
        let soak = SoakRun(options: SoakOptions(duration: duration, seed: seed, clients: clients, faultEvery: faultEvery,
                                                executable: currentExecutable(), runDirectory: directory, labScript: netns,
                                                highAvailability: ha, coordinatorArguments: plantBug.map { ["--plant-bug", $0] } ?? []))
        let result = try soak.run { emit("  \($0)") }
        if saveHistory {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(result.history).write(to: URL(fileURLWithPath: "\(directory)/history.json"))
        }
        emit(result.summary)
        if !result.report.passed { throw ExitCode(1) }
        if runDir == nil { try? FileManager.default.removeItem(atPath: directory) }
    }
}
