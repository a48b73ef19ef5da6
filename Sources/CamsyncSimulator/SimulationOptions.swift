public import CamsyncRuntime
public import CamsyncCoordinator

/// What one simulated run is: a seed and the shape of the cluster (docs/TESTING.md "The simulator").
public struct SimulationOptions: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Several coordinators on the simulated etcd (SPEC K6).
        case highAvailability = "ha"
        /// One coordinator with its journal.
        case embedded
    }

    public var seed: UInt64
    public var mode: Mode
    public var coordinators: Int
    /// Nodes: the soak's three iPads and three displays, then more iPads.
    public var nodes: Int
    public var clients: Int
    /// Monitors asking for the whole state once a second, all on the same second (`SimObserver`).
    public var observers: Int
    /// Simulated seconds of workload with faults; then the faults heal and the liveness phase runs.
    public var faultSeconds: Double
    /// Simulated seconds the cluster gets, once healed, to converge and grant a fresh claim.
    public var livenessSeconds: Double
    public var faults: Bool
    public var heartbeatMilliseconds: Int64
    public var liveness: Int64
    public var leaseSeconds: Int64
    /// A bug planted on purpose (the proof that the oracle bites); nil for a real run.
    public var plantedBug: PlantedBug?
    /// Keep every delivery and fault as a line (`--trace`).
    public var trace: Bool

    public init(seed: UInt64, mode: Mode = .highAvailability, coordinators: Int = 3, nodes: Int = 6, clients: Int = 2, observers: Int = 0,
                faultSeconds: Double = 30, livenessSeconds: Double = 15, faults: Bool = true,
                heartbeatMilliseconds: Int64 = 200, liveness: Int64 = 3, leaseSeconds: Int64 = 2,
                plantedBug: PlantedBug? = nil, trace: Bool = false) {
        self.seed = seed
        self.mode = mode
        self.coordinators = mode == .embedded ? 1 : max(1, coordinators)
        self.nodes = max(6, nodes)
        self.clients = max(1, clients)
        self.observers = max(0, observers)
        self.faultSeconds = faultSeconds
        self.livenessSeconds = livenessSeconds
        self.faults = faults
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
        self.leaseSeconds = leaseSeconds
        self.plantedBug = plantedBug
        self.trace = trace
    }

    /// The command that runs exactly this seed again.
    public var replayCommand: String {
        var words = ["camsync", "sim", "--seed", "\(seed)", "--mode", mode.rawValue, "--nodes", "\(nodes)",
                     "--clients", "\(clients)", "--fault-seconds", "\(Int(faultSeconds))"]
        if mode == .highAvailability { words += ["--coordinators", "\(coordinators)"] }
        if observers > 0 { words += ["--observers", "\(observers)"] }
        if !faults { words.append("--no-faults") }
        if let plantedBug { words += ["--plant", plantedBug.rawValue] }
        return (words + ["--trace"]).joined(separator: " ")
    }
}
