import Foundation

/// Sizes and durations of a run (`--quick` shrinks them) and where things go.
public struct BenchSettings: Sendable {
    public var executable: String
    public var workDirectory: String
    public var quick: Bool
    /// Wraps the coordinator process, e.g. `taskset -c 1` (pinning).
    public var coordinatorPrefix: [String]
    /// Simulated nodes registered for `latency` (the `latency` target: 50).
    public var nodes: Int
    /// SUB sockets for `fanout` (the `fanout` target: 500) and how many processes they are spread over.
    public var subscribers: Int
    public var subscriberProcesses: Int
    /// Journaled commands for `recovery` (the `recovery` target: 100,000).
    public var recoveryCommands: Int
    /// `memory`: nodes and apps per node (the `memory` target: 1,000 nodes / 10,000 apps).
    public var memoryNodes: Int
    public var memoryAppsPerNode: Int
    /// `ha-latency`: coordinators on etcd (3; 1 is a leader without standbys, to tell their share of a claim).
    public var haCoordinators: Int
    /// `fleet`: the largest fleet's nodes (devices and their displays; 10,000: a coordinator holds one
    /// descriptor a node, under a per-process limit of 20,000 here).
    public var fleetNodes: Int
    /// `fleet`, `fleet-failover`: only these sizes (`--fleet-sizes`), instead of the suite's.
    public var fleetSizes: [Int]?
    /// Where the HA benchmarks' etcd members keep their data: the work directory (on disk, so that
    /// etcd's fsyncs cost what they cost; a bench that crashes leaves it there, not beside it); tests
    /// pass tmpfs (`EtcdCluster.scratchParent`).
    public var etcdDataParent: String
    public var progress: @Sendable (String) -> Void

    public init(executable: String, workDirectory: String, quick: Bool = false, coordinatorPrefix: [String] = [],
                nodes: Int = 50, subscribers: Int = 500, subscriberProcesses: Int = 4, recoveryCommands: Int? = nil,
                memoryNodes: Int = 1000, memoryAppsPerNode: Int = 10, haCoordinators: Int = 3, fleetNodes: Int = 10_000, fleetSizes: [Int]? = nil,
                progress: @escaping @Sendable (String) -> Void = { _ in }) {
        self.executable = executable
        self.workDirectory = workDirectory
        self.etcdDataParent = workDirectory
        self.quick = quick
        self.coordinatorPrefix = coordinatorPrefix
        self.nodes = nodes
        self.subscribers = subscribers
        self.subscriberProcesses = subscriberProcesses
        self.recoveryCommands = recoveryCommands ?? (quick ? 20_000 : 100_000)
        self.memoryNodes = memoryNodes
        self.memoryAppsPerNode = memoryAppsPerNode
        self.haCoordinators = haCoordinators
        self.fleetNodes = fleetNodes
        self.fleetSizes = fleetSizes.map { $0.map { $0 / 2 * 2 } }
        self.progress = progress
    }

    /// `full` when not quick, else `quick`.
    public func pick<T>(_ full: T, quick: T) -> T { self.quick ? quick : full }

    /// A fresh directory for one benchmark.
    public func directory(_ name: String) throws -> String {
        let path = "\(workDirectory)/\(name)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// The benchmarks `camsync bench` knows, in the order a full run does them.
public enum BenchmarkName: String, CaseIterable, Sendable {
    case latency, throughput, fanout, failover, recovery, memory, micro
    /// HA coordinators on etcd (SPEC K6); each starts its own 3-member loopback etcd.
    case haLatency = "ha-latency", haFailover = "ha-failover", haThroughput = "ha-throughput"
    /// Cost against state size: apps on a device, nodes, a standby's rebuild, a replay-all restart.
    case scale
    /// Many real nodes on one leader: joining, copies per batch, delivery to a group, heartbeats' cost.
    case fleet
    /// The HA leader killed with a fleet joined.
    case fleetFailover = "fleet-failover"

    /// Whether it runs on a loopback etcd of its own (Debian etcd-server): without one it is
    /// skipped with a note, not failed.
    public var needsEtcd: Bool {
        switch self {
        case .haLatency, .haFailover, .haThroughput, .fleetFailover: true
        default: false
        }
    }

    /// The targets it judges, in words (docs/PERFORMANCE.md "Targets"): what a report lists as not
    /// run when the benchmark fails before judging them.
    public var targets: [String] {
        switch self {
        case .latency: ["claim→grant p50 and p99, journal off", "claim→grant p50 and p99, journal full",
                        "claim→grant p99, journal off, web view watched"]
        case .throughput: ["commands/s, journal full"]
        case .fanout: ["event reaches all nodes, p99"]
        case .failover: ["node killed → declared dead, every replica updated"]
        case .recovery: ["restart with 100k journaled commands, serving again"]
        case .memory: ["coordinator RSS, 1000 nodes / 10000 apps"]
        case .micro: []
        case .haLatency: ["claim→grant p50, log on etcd"]
        case .haFailover: ["HA failover: first ack", "HA failover with 1000 nodes: every node follows after the first ack",
                           "HA failover: registrations and snapshot requests caused"]
        case .haThroughput: ["commands/s, log on etcd", "commands/s as a share of the raw ceiling"]
        case .scale: ["flat cost against apps and nodes", "standby rebuild", "restart, replay all"]
        case .fleet: ["fleet: registration + sync of every node", "fleet: copies the leader sends per batch",
                      "fleet: a batch reaches every node of its group, p99", "fleet: a node's CPU and memory, flat"]
        case .fleetFailover: ["HA failover with a fleet: first ack", "HA failover with a fleet: every node follows after the first ack",
                              "HA failover with a fleet: registrations and snapshot requests caused"]
        }
    }
}
