import CamsyncProcessLab
import CamsyncRuntime
import Foundation
import ZeroMQ

/// The bench side of a fleet's node processes: `camsync bench fleet-shard` children, each holding up
/// to `devicesPerProcess` devices with their displays (two nodes each), and the PULL socket their
/// reports arrive on. Reads what they report (joined nodes, batch copies, heartbeats, each group's
/// applied position, which coordinator the nodes follow) and what the kernel says of them (CPU time,
/// RSS). Stopping it stops and reaps every child.
final class FleetShards {
    /// 2,000 nodes a process: each node holds about four descriptors in it (two sockets, each with its
    /// connection and libzmq's mailbox), well under the per-process limit (20,000 here).
    static let devicesPerProcess = 1000

    let devices: Int
    let reports: ZMQSocket
    private var children: [ManagedProcess] = []
    private var statusesReceived: [Int: Int] = [:]
    private var status: [Int: (joined: Int, batchCopies: Int, batchBytes: Int, heartbeatsSent: Int, registrations: Int,
                               baseRSSKilobytes: Int)] = [:]
    /// The counts when a failover trial began (`watch(leaving:)`).
    var watched: (registrations: Int, snapshotRequests: Int, reconnections: Int)?
    /// The leader's heartbeats and bookmarks the nodes received, by 100 ms bucket (`ArrivalSpread`).
    private(set) var arrivals: [Int64: Int] = [:]
    private var followingStatus: [Int: (snapshotRequests: Int, reconnections: Int, lastMovedAt: UInt64, nodes: [String: Int])] = [:]

    var nodes: Int { 2 * devices }
    var processes: Int { children.count }
    var pids: [Int32] { children.map(\.pid) }

    /// Shard processes whose nodes use the coordinators at `commandEndpoints` and `eventEndpoints`
    /// (one, or an HA cluster's: the nodes then find and follow its leader); `niceness`: the shard
    /// processes' nice value.
    init(_ settings: BenchSettings, context: ZMQContext, directory: String, label: String, commandEndpoints: [String],
         eventEndpoints: [String], devices: Int, heartbeatMilliseconds: Int64, liveness: Int64, niceness: Int32 = 0,
         keys: FleetKeys? = nil) throws {
        self.devices = devices
        reports = try ZMQSocket(context, .pull)
        try reports.set([.linger(milliseconds: 0), .receiveHighWaterMark(1_000_000)])
        let endpoint = BenchSystem.loopbackEndpoint()
        try reports.bind(endpoint)
        let count = (devices + Self.devicesPerProcess - 1) / Self.devicesPerProcess
        do {
            for k in 0..<count {
                let first = k * devices / count, end = (k + 1) * devices / count
                let child = try ManagedProcess(name: "fleet-shard-\(k)", executable: settings.executable,
                    arguments: ["bench", "fleet-shard", "--command", commandEndpoints.joined(separator: ","),
                                "--events", eventEndpoints.joined(separator: ","),
                                "--report", endpoint, "--first", "\(first)", "--devices", "\(end - first)",
                                "--heartbeat-ms", "\(heartbeatMilliseconds)", "--liveness", "\(liveness)", "--id", "\(k)",
                                "--niceness", "\(niceness)"]
                        + (keys.map { ["--coordinator-key", $0.coordinator.publicKey, "--key-salt", "\($0.salt)"] } ?? []),
                    logPath: "\(directory)/fleet-shard-\(label)-\(k).log")
                children.append(child)
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Takes the reports at hand: statuses are kept, `applied` ones handed to `onApplied`.
    func take(onApplied: (_ device: Int, _ sequence: UInt64, _ at: UInt64) -> Void = { _, _, _ in }) throws {
        while let message = try reports.receive(dontWait: true) {
            switch FleetShardReport(message.frames[0]) {
            case .status(let shard, let joined, let copies, let bytes, let heartbeats, let registrations, let base)?:
                status[shard] = (joined, copies, bytes, heartbeats, registrations, base)
                statusesReceived[shard, default: 0] += 1
            case .applied(let device, let sequence, let at)?:
                onApplied(device, sequence, at)
            case .following(let shard, let snapshots, let reconnections, let at, let nodes)?:
                followingStatus[shard] = (snapshots, reconnections, at, nodes)
            case .arrivals(_, let buckets)?:
                arrivals.merge(buckets, uniquingKeysWith: +)
            case nil:
                continue
            }
        }
        if let dead = children.first(where: { !$0.isRunning }) {
            throw BenchError("fleet shard \(dead.name) ended (status \(dead.exitStatus ?? -1)): \(dead.logTail(5))")
        }
    }

    /// Waits for reports up to `milliseconds`, then takes them.
    func pump(milliseconds: Int, onApplied: (_ device: Int, _ sequence: UInt64, _ at: UInt64) -> Void = { _, _, _ in }) throws {
        let poller = Poller()
        poller.register(reports, for: .readable)
        _ = try poller.poll(timeoutMs: milliseconds)
        try take(onApplied: onApplied)
    }

    /// The last lines of every shard process's log (for a benchmark's error).
    func logTails(_ lines: Int = 12) -> String {
        children.map { "--- \($0.name)\n\($0.logTail(lines))" }.joined(separator: "\n")
    }

    /// The sums of the shards' last statuses.
    var joined: Int { status.values.map(\.joined).reduce(0, +) }
    var batchCopies: Int { status.values.map(\.batchCopies).reduce(0, +) }
    var batchBytes: Int { status.values.map(\.batchBytes).reduce(0, +) }
    var heartbeatsSent: Int { status.values.map(\.heartbeatsSent).reduce(0, +) }
    var registrations: Int { status.values.map(\.registrations).reduce(0, +) }
    var snapshotRequests: Int { followingStatus.values.map(\.snapshotRequests).reduce(0, +) }
    /// Connections the nodes closed and opened again (a leader change costs none).
    var reconnections: Int { followingStatus.values.map(\.reconnections).reduce(0, +) }
    /// The nodes that follow the coordinator at `commandEndpoint`.
    func following(_ commandEndpoint: String) -> Int { followingStatus.values.map { $0.nodes[commandEndpoint] ?? 0 }.reduce(0, +) }
    /// When (monotonic ns) a node last moved to another coordinator (0: none has).
    var lastMovedAt: UInt64 { followingStatus.values.map(\.lastMovedAt).max() ?? 0 }

    /// The shard processes' CPU seconds so far (user + system).
    var cpuSeconds: Double { pids.compactMap { BenchSystem.processCPUSeconds(pid: $0) }.reduce(0, +) }

    /// The nodes' resident memory: the processes' RSS less what each held before its first node (MiB).
    var nodesRSSMegabytes: Double {
        let rss = pids.compactMap { BenchSystem.procStatusKilobytes(pid: $0, field: "VmRSS") }.reduce(0, +)
        return Double(rss - status.values.map(\.baseRSSKilobytes).reduce(0, +)) / 1024
    }

    /// Until every shard has sent two statuses since the call (within 10 s): the sums then count
    /// everything the shards did before it.
    func freshStatuses(onApplied: (_ device: Int, _ sequence: UInt64, _ at: UInt64) -> Void = { _, _, _ in }) throws {
        let before = statusesReceived
        let deadline = Clock.monotonicNanoseconds() + 10_000_000_000
        while children.indices.contains(where: { (statusesReceived[$0] ?? 0) < (before[$0] ?? 0) + 2 }) {
            guard Clock.monotonicNanoseconds() < deadline else { throw BenchError("fleet shards sent no status for 10 s") }
            try pump(milliseconds: 50, onApplied: onApplied)
        }
    }

    func stop() {
        for child in children { child.stop(grace: 2) }
        children.removeAll()
        reports.close()
    }
}
