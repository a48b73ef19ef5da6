import ArgumentParser
import CamsyncProcessLab
import CamsyncTopology
import CamsyncPKI
import Foundation

struct ClusterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Run a whole topology on this machine: up, status, down, logs.",
        discussion: "Example: camsync cluster up deploy/topologies/lab.yaml && camsync cluster status deploy/topologies/lab.yaml",
        subcommands: [ClusterUpCommand.self, ClusterStatusCommand.self, ClusterDownCommand.self, ClusterLogsCommand.self])
}

/// The topology argument and run directory every `cluster` subcommand takes.
struct TopologyArgument: ParsableArguments {
    @Argument(help: "The topology file (deploy/topologies/*.yaml).") var file: String
    @Option(help: "Run directory (default: /tmp/camsync-NAME, or $CAMSYNC_RUN_DIR/NAME).") var runDir: String?

    func load() throws -> (Topology, String) {
        let topology: Topology
        do {
            topology = try Topology(path: file)
        } catch {
            throw ValidationError("\(error)")
        }
        return (topology, runDir ?? RunDirectory.default(for: topology).path)
    }
}

/// The camsync binary that is running now (children are started from the same build).
func currentExecutable() -> String { CamsyncExecutable.current }

struct ClusterUpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Start every process of the topology (safe to repeat) and wait until all nodes joined.")

    @OptionGroup var topology: TopologyArgument
    @Option(help: "Seconds to wait for every node to join.") var timeout: Double = 60

    func run() throws {
        let (topology, runDirectory) = try self.topology.load()
        let cluster = try LocalCluster(topology: topology, runDirectory: runDirectory, executable: currentExecutable())
        cluster.stopsProcessesOnDeinit = false
        print("cluster \(topology.name): \(topology.nodes.count) nodes, run directory \(runDirectory)"
              + (cluster.keys != nil ? ", CURVE on (keys in \(runDirectory)/keys)" : ", CURVE off"))
        if let etcd = topology.etcd {
            print("HA: coordinators \(topology.coordinatorProcessNames.joined(separator: ", ")) on etcd "
                  + (etcd.members.map { "(\($0) members started here)" } ?? (etcd.endpoints ?? []).joined(separator: ",")))
        }
        var last = ""
        let started: [String]
        do {
            started = try cluster.startMissing(timeout: timeout) { line in
                if line != last { print("  waiting: \(line)"); last = line }
            }
        } catch {
            print("cluster \(topology.name) did not come up: \(error)")
            print("logs are in \(runDirectory)/*.log; stop what started with: camsync cluster down \(self.topology.file)")
            throw ExitCode.failure
        }
        print(started.isEmpty ? "already running; nothing to start" : "started: \(started.joined(separator: ", "))")
        if let etcd = topology.etcd, etcd.members != nil, etcd.plaintext != true {
            let tls = LocalCluster.etcdCertificateDirectory(topology, runDirectory: runDirectory)
            print("etcd: mutual TLS from a lab CA made for this run directory (\(tls)/ca.key, readable by you only; "
                  + "\(tls)/\(EtcdCertificates.labNoticeFile)). In production keep the CA key offline: docs/OPERATIONS.md, "
                  + "\"Certificates and etcd auth\".")
        }
        if topology.isHighAvailability, let leader = try? cluster.leaderCommandEndpoint(),
           let name = topology.allCoordinators.first(where: { LocalCluster.localCommands($0) == leader })?.name {
            print("leader: \(name) (\(leader))")
        }
        print("all \(topology.nodes.count) nodes joined. logs: \(runDirectory)/NAME.log (camsync cluster logs \(self.topology.file) NAME)")
    }
}

struct ClusterStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show which processes of the topology run.")
    @OptionGroup var topology: TopologyArgument

    func run() throws {
        let (topology, runDirectory) = try self.topology.load()
        let record = RunDirectory(path: runDirectory)
        print("cluster \(topology.name) (run directory \(runDirectory))")
        var rows = [["PROCESS", "PID", "STATE"]]
        for name in topology.etcdMemberNames + topology.coordinatorProcessNames + topology.nodes.map(\.id) {
            if let entry = record.entry(name) {
                rows.append([name, "\(entry.pid)", entry.alive ? "running" : "exited"])
            } else {
                rows.append([name, "-", "not started"])
            }
        }
        print(Table.render(rows))
        let running = rows.dropFirst().filter { $0[2] == "running" }.count
        print("\(running)/\(rows.count - 1) running")
    }
}

struct ClusterDownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "down", abstract: "Stop every process: SIGTERM (graceful), then SIGKILL after --grace seconds.")
    @OptionGroup var topology: TopologyArgument
    @Option(help: "Seconds to wait after SIGTERM before SIGKILL.") var grace: Double = 10

    func run() throws {
        let (topology, runDirectory) = try self.topology.load()
        let record = RunDirectory(path: runDirectory)
        if record.entries().filter(\.alive).isEmpty {
            print("cluster \(topology.name): nothing running")
            return
        }
        // Nodes first, then the coordinators (an HA leader hands over as it goes), etcd's members last.
        let forced = record.stopAll(grace: grace, last: [topology.coordinatorProcessNames, topology.etcdMemberNames]) { print("  \($0)") }
        print(forced.isEmpty ? "cluster \(topology.name) stopped" : "cluster \(topology.name) stopped; forced: \(forced.joined(separator: ", "))")
    }
}

struct ClusterLogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logs", abstract: "Print a process's log (the coordinator or a node id).")
    @OptionGroup var topology: TopologyArgument
    @Argument(help: "coordinator (HA: a coordinator's name, or etcd-N) or a node id.") var name: String
    @Option(help: "Only the last N lines (0 = all).") var lines = 100

    func run() throws {
        let (_, runDirectory) = try self.topology.load()
        let path = RunDirectory(path: runDirectory).logPath(name)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("no log at \(path): is '\(name)' part of this cluster, and was it started?")
        }
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        print((lines > 0 ? all.suffix(lines) : all[...]).joined(separator: "\n"))
    }
}
