import CamsyncCoordinator
import CamsyncEtcd
import CamsyncClient
import CamsyncNode
import CamsyncPolicy
import CamsyncRuntime
public import CamsyncHistory
import CamsyncProcessLab
import CamsyncTopology
import CamsyncWorkload
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
import CamsyncCoordinatorCore
#endif

/// How a soak runs.
public struct SoakOptions: Sendable {
    public var duration: Double
    public var seed: UInt64
    /// Concurrent workload clients (each a DEALER through the faulty proxy).
    public var clients: Int
    /// Seconds between injected faults.
    public var faultEvery: Double
    public var heartbeatMilliseconds: Int64
    public var liveness: Int64
    /// After the faults stop, how long replicas may take to converge (the bound the checker enforces).
    public var convergenceTimeout: Double
    public var executable: String
    public var runDirectory: String
    /// `deploy/netns/lab.sh`: when set, every process gets its own network namespace and the fault
    /// schedule adds network partitions of a node's host (needs root; see `NetworkLab.isAvailable`).
    public var labScript: String?
    /// HA mode (SPEC K6): three coordinators on a 3-member etcd cluster; the faults add kill -9 and
    /// SIGSTOP of the leader and kill -9 of etcd members. With `labScript`, every etcd member,
    /// coordinator and node has a namespace of its own, and half the faults cut links
    /// (`PartitionNemesis`).
    public var highAvailability: Bool
    /// What every coordinator's command line adds (a test plants a bug with `--plant-bug`).
    public var coordinatorArguments: [String]

    public init(duration: Double, seed: UInt64, clients: Int = 2, faultEvery: Double = 3, heartbeatMilliseconds: Int64 = 200,
                liveness: Int64 = 4, convergenceTimeout: Double = 20, executable: String, runDirectory: String,
                labScript: String? = nil, highAvailability: Bool = false, coordinatorArguments: [String] = []) {
        self.labScript = labScript
        self.coordinatorArguments = coordinatorArguments
        self.highAvailability = highAvailability
        self.duration = duration
        self.seed = seed
        self.clients = clients
        self.faultEvery = faultEvery
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
        self.convergenceTimeout = convergenceTimeout
        self.executable = executable
        self.runDirectory = runDirectory
    }
}

/// What a soak did and what the checker said.
public struct SoakResult: Sendable {
    public var report: CheckReport
    public var history: History
    public var operations: Int
    public var acknowledged: Int
    public var faults: [FaultCount]
    public var proxy: FaultyProxy.Counts
    public var seconds: Double
    public var runDirectory: String

    public var summary: String {
        var lines = ["soak: \(operations) operations (\(acknowledged) acknowledged) in \(String(format: "%.1f", seconds)) s",
                     "faults: " + faults.map { "\($0.kind) \($0.count)" }.joined(separator: ", "),
                     "proxy: forwarded \(proxy.forwarded), dropped requests \(proxy.droppedRequests), duplicated \(proxy.duplicated), "
                        + "delayed \(proxy.delayed), dropped replies \(proxy.droppedReplies)",
                     "run directory: \(runDirectory)"]
        lines.append(report.summary)
        return lines.joined(separator: "\n")
    }
}

/// A real cluster under a seeded workload and a schedule of faults (kill -9 of nodes and of the
/// coordinator, SIGSTOP pauses longer than the liveness timeout, dropped/duplicated/delayed
/// messages through a faulty proxy), recorded from the resources' side and checked (CamsyncHistory).
public final class SoakRun: @unchecked Sendable {
    /// The audio notifications every soak's nodes log (its prologue reaches them).
    public static var audioCoverage: Set<AudioObservation.Kind> { Workload.audioCoverage }

    public let options: SoakOptions
    private let acks = Locked<[AcknowledgedCommand]>([])
    private let operations = Locked(0)
    private let stops = Locked<[NodeStopped]>([])
    private let faultCounts = Locked<[String: Int]>([:])
    /// Each acknowledgement's arrival and term (the partition nemesis looks for a later term's).
    private let ackTerms = Locked<[(at: Instant, term: UInt64)]>([])
    private let partitions = Locked<[PartitionObservation]>([])
    private let requestIDs: Locked<UInt64>

    public init(options: SoakOptions) {
        self.options = options
        requestIDs = Locked(UInt64(Clock.wallMilliseconds()) << 16)
    }

    public func run(progress: @escaping @Sendable (String) -> Void = { _ in }) throws -> SoakResult {
        let started = Date()
        let dir = options.runDirectory
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let ha = options.highAvailability
        let lab = try options.labScript.map { script -> NetworkLab in
            let lab = NetworkLab(script: script, hosts: SoakTopology.labHosts(highAvailability: ha))
            progress("network lab: \(lab.hosts) hosts\(ha ? "" : " + coordinator") in namespaces \(lab.prefix)-*, "
                     + "subnet \(lab.subnet).0/24")
            try lab.up()
            return lab
        }
        defer { lab?.down() }
        let topology = try Topology(yaml: SoakTopology.yaml(
            commands: lab.map { "tcp://\($0.subnet).1:5555" } ?? "ipc://\(dir)/coordinator.sock",
            events: lab.map { "tcp://\($0.subnet).1:5556" } ?? "ipc://\(dir)/events.sock",
            heartbeatMs: options.heartbeatMilliseconds, liveness: options.liveness,
            lab: lab.map { ($0.prefix, $0.subnet) }, directory: dir, highAvailability: ha))
        let cluster = try LocalCluster(topology: topology, runDirectory: dir, executable: options.executable)
        cluster.recordsNodeHistory = true
        // In the lab a cut-off leader's etcd requests wait 5 s, longer than its 2 s lease: what must
        // stop it leading in time is the lease, not a write that fails (docs/TESTING.md "HA soak").
        cluster.coordinatorArguments = (ha && lab != nil ? ["--etcd-request-timeout-ms", "5000"] : [])
            + options.coordinatorArguments
        defer { cluster.stop(grace: 3) }
        progress("starting coordinator and \(topology.nodes.count) nodes in \(dir)")
        try cluster.start(timeout: 30)

        let context = try ZMQContext()
        let proxy = FaultyProxy(context: context, frontend: "ipc://\(dir)/proxy.sock",
                                backend: cluster.localCommandEndpoints.joined(separator: ","),
                                seed: options.seed ^ 0xFA17)
        try proxy.start()
        defer { proxy.stop() }

        try playAudioPrologue(cluster: cluster, proxy: "ipc://\(dir)/proxy.sock")
        progress("audio prologue: \(Workload.audioPrologue.count) commands acknowledged and applied by every node")
        let deadline = Date().addingTimeInterval(options.duration)
        let workers = try (0..<options.clients).map { index in
            let seed = options.seed &+ UInt64(index) &* 7919
            return try JoinableThread { [self] in self.workload(seed: seed, proxy: "ipc://\(dir)/proxy.sock", until: deadline) }
        }
        progress("workload: \(options.clients) clients for \(Int(options.duration)) s, a fault every \(options.faultEvery) s")
        injectFaults(cluster: cluster, proxy: proxy, lab: lab, until: deadline, progress: progress)
        workers.forEach { $0.join() }
        proxy.setFaults(.none)

        // Faults stop: everything runs again, and every replica must converge within the bound.
        lab?.healAll()
        for node in topology.nodes.map(\.id) {
            cluster.signalNode(node, SIGCONT)
            if cluster.nodes[node]?.isRunning != true { try cluster.startNode(node) }
        }
        for name in cluster.topology.coordinatorProcessNames { cluster.signalCoordinator(named: name, SIGCONT) }
        if let etcd = cluster.etcd {
            for index in etcd.members.indices where !etcd.isRunning(index) { try etcd.start(index) }
        }
        if cluster.topology.isHighAvailability || cluster.coordinator?.isRunning != true { try cluster.startCoordinator() }
        progress("faults stopped; waiting up to \(Int(options.convergenceTimeout)) s for every replica to converge")
        var converged = true
        do {
            try cluster.waitUntilJoined(timeout: options.convergenceTimeout)
            try cluster.waitUntil(timeout: options.convergenceTimeout, what: "replicas to converge") {
                let (coordinator, nodes) = try cluster.replicas()
                return nodes.values.allSatisfy { $0.caughtUp(with: coordinator) }
            }
        } catch {
            converged = false
            progress("replicas did not converge: \(error)")
        }
        // One consistent cut: the coordinator's state, the replicas and the log at the same sequence.
        // The coordinator goes on by itself (an engine deadline, such as P6's PiP restore, may fire
        // after the workload stopped), so the cut is taken again until the coordinator's sequence is
        // the same before and after the replicas and the log were read.
        var (snapshot, statuses) = try cluster.replicas()
        var log = try commandLog(cluster)
        for _ in 0..<20 {
            if try cluster.replicas().coordinator.sequence == snapshot.sequence { break }
            // It moved on: the replicas catch up with it (as above), then the cut is taken again.
            try? cluster.waitUntil(timeout: options.convergenceTimeout, what: "replicas to converge") {
                let (coordinator, nodes) = try cluster.replicas()
                return nodes.values.allSatisfy { $0.caughtUp(with: coordinator) }
            }
            (snapshot, statuses) = try cluster.replicas()
            log = try commandLog(cluster)
        }
        let replicas = try statuses.sorted { $0.key < $1.key }.map { node, status in
            ReplicaState(node: NodeID(node), state: try ClusterState(wire: status.replica), sequence: status.sequence,
                         group: status.group.isEmpty ? nil : NodeID(status.group), groupSequence: status.groupSequence)
        }
        let endedAt = Instant(milliseconds: Clock.wallMilliseconds())
        cluster.stop(grace: 5)
        for node in topology.nodes.map(\.id) { stops.withLock { $0.append(NodeStopped(node: NodeID(node), at: endedAt)) } }
        if !converged { faultCounts.withLock { $0["no convergence", default: 0] += 1 } }

        let history = try collect(cluster: cluster, log: log, coordinator: snapshot, replicas: replicas, endedAt: endedAt)
        let report = HistoryChecker.check(history, settings: snapshot.settings)
        return SoakResult(report: report, history: history, operations: operations.withLock { $0 },
                          acknowledged: acks.withLock { $0.count }, faults: history.faults, proxy: proxy.currentCounts,
                          seconds: Date().timeIntervalSince(started), runDirectory: dir)
    }

    // MARK: Workload

    /// The audio prologue (`Workload.audioPrologue`), sent in order by one client before the faults
    /// and the random clients start, each acknowledged; then every node's replica reaches its last
    /// sequence, so that each node has logged what its apps were told before any fault can stop it.
    private func playAudioPrologue(cluster: LocalCluster, proxy endpoint: String) throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .dealer)
        defer { socket.close() }
        try socket.set(.linger(milliseconds: 0))
        try socket.connect(endpoint)
        let poller = Poller()
        poller.register(socket, for: .readable)
        var last: UInt64 = 0
        for (node, command) in Workload.audioPrologue {
            switch request(node, command, socket: socket, poller: poller) {
            case .ack(let ack)?: last = ack.sequence
            case .error(let error)?: throw ClusterWaitError(message: "the soak's audio prologue: \(node) \(command) refused: \(error.message)")
            default: throw ClusterWaitError(message: "the soak's audio prologue: \(node) \(command) not answered")
            }
        }
        try cluster.waitUntil(timeout: 30, what: "every replica to apply the audio prologue (sequence \(last))") {
            let (coordinator, nodes) = try cluster.replicas()
            return coordinator.sequence >= last && nodes.values.allSatisfy { $0.caughtUp(with: coordinator) }
        }
    }

    private func workload(seed: UInt64, proxy endpoint: String, until deadline: Date) {
        guard let context = try? ZMQContext(), let socket = try? ZMQSocket(context, .dealer) else { return }
        defer { socket.close() }
        try? socket.set(.linger(milliseconds: 0))
        guard (try? socket.connect(endpoint)) != nil else { return }
        let poller = Poller()
        poller.register(socket, for: .readable)
        var workload = Workload(seed: seed)
        while Date() < deadline {
            let (node, command) = workload.next()
            _ = request(node, command, socket: socket, poller: poller)
        }
    }

    /// Sends one command as `node` and waits for its answer: an ack (recorded) or a refusal. Retries
    /// with the same request id (K5) through drops, delays, coordinator restarts and NOT_LEADER; nil
    /// when none of the attempts was answered.
    private func request(_ node: NodeID, _ command: Command, socket: ZMQSocket, poller: Poller) -> Envelope.OneOf_Body? {
        let requestID = requestIDs.withLock { id -> UInt64 in id += 1; return id }
        let bytes = Envelope.request(command, sender: node.rawValue, requestID: requestID).serializedBytes()
        operations.withLock { $0 += 1 }
        for _ in 0..<(options.highAvailability ? 80 : 20) {
            guard (try? socket.send([bytes], dontWait: true)) == true else { usleep(50_000); continue }
            let until = Clock.monotonicMilliseconds() + 400
            waiting: while Clock.monotonicMilliseconds() < until {
                guard let ready = try? poller.poll(timeoutMs: 50), !ready.isEmpty else { continue }
                while let message = try? socket.receive(dontWait: true) {
                    guard message.frames.count == 1, let reply = try? Envelope.decode(message.frames[0]),
                          reply.requestID == requestID else { continue }
                    // A standby (or a leader that could not commit): not an answer; again, same id.
                    if case .error(let error)? = reply.body, error.code == .notLeader {
                        usleep(50_000)
                        break waiting
                    }
                    if case .ack(let ack)? = reply.body {
                        ackTerms.withLock { $0.append((Instant(milliseconds: Clock.wallMilliseconds()), reply.term)) }
                        acks.withLock {
                            $0.append(AcknowledgedCommand(node: node, requestID: requestID, sequence: ack.sequence,
                                                          command: command, ackedAt: Instant(milliseconds: Clock.wallMilliseconds())))
                        }
                    }
                    return reply.body
                }
            }
        }
        return nil
    }

    // MARK: Faults

    private func injectFaults(cluster: LocalCluster, proxy: FaultyProxy, lab: NetworkLab?, until deadline: Date,
                              progress: @Sendable (String) -> Void) {
        var rng = SplitMix64(seed: options.seed ^ 0xFA_017)
        let nodes = cluster.topology.nodes.map(\.id)
        let livenessMs = options.heartbeatMilliseconds * options.liveness
        func count(_ kind: String) { faultCounts.withLock { $0[kind, default: 0] += 1 } }
        func sleepMs(_ ms: Int64) { usleep(UInt32(max(0, ms)) * 1000) }
        let nemesis = lab.flatMap { lab in
            options.highAvailability ? PartitionNemesis(cluster: cluster, lab: lab, leaseMilliseconds: 2_000,
                                                        ackTerms: { [ackTerms] in ackTerms.withLock { $0 } }) : nil
        }
        while Date().addingTimeInterval(options.faultEvery) < deadline {
            sleepMs(Int64(options.faultEvery * 1000))
            // In the HA lab, half the faults cut links; each kind in turn, from a random start.
            if let nemesis, rng.next() % 2 == 0 {
                let kinds = PartitionNemesis.Kind.allCases
                let kind = kinds[(faultCounts.withLock { $0.filter { $0.key.hasPrefix("cut ") }.values.reduce(0, +) }
                                  + Int(options.seed % UInt64(kinds.count))) % kinds.count]
                if let seen = nemesis.run(kind, rng: &rng, progress: progress) {
                    partitions.withLock { $0.append(seen) }
                    count("cut \(kind.name)")
                }
                continue
            }
            let nodeIndex = Int(rng.next() % UInt64(nodes.count))
            let node = nodes[nodeIndex]
            let kinds = lab == nil ? 4 : 5
            switch rng.next() % UInt64(options.highAvailability ? kinds + 2 : kinds) {
            case 1 where options.highAvailability:
                guard let leader = try? leaderName(cluster) else { continue }
                progress("fault: kill -9 the leader \(leader), restart it after a pause")
                cluster.signalCoordinator(named: leader, SIGKILL)
                count("kill -9 leader")
                sleepMs(500 + Int64(rng.next() % 2500))
                try? cluster.startCoordinator(named: leader)
            case 5 where options.highAvailability, 4 where options.highAvailability && lab == nil:
                guard let leader = try? leaderName(cluster) else { continue }
                progress("fault: SIGSTOP the leader \(leader) beyond its lease, then SIGCONT")
                cluster.signalCoordinator(named: leader, SIGSTOP)
                count("SIGSTOP leader")
                sleepMs(2_500 + Int64(rng.next() % 1500))
                cluster.signalCoordinator(named: leader, SIGCONT)
            case 6, 5 where lab == nil:
                guard let etcd = cluster.etcd else { continue }
                let member = Int(rng.next() % UInt64(etcd.members.count))
                progress("fault: kill -9 etcd member \(member), restart it after a pause")
                etcd.kill(member)
                count("kill -9 etcd member")
                sleepMs(1000 + Int64(rng.next() % 2000))
                try? etcd.start(member)
            case 4:
                guard let lab else { continue }
                let host = SoakTopology.nodeHost(nodeIndex, highAvailability: options.highAvailability)
                progress("fault: partition \(node)'s host beyond the liveness timeout, then heal")
                lab.partition(host: host)
                count("network partition")
                sleepMs(livenessMs + 300 + Int64(rng.next() % 700))
                lab.heal(host: host)
            case 0:
                progress("fault: kill -9 \(node), restart after a pause")
                cluster.signalNode(node, SIGKILL)
                stops.withLock { $0.append(NodeStopped(node: NodeID(node), at: Instant(milliseconds: Clock.wallMilliseconds()))) }
                count("kill -9 node")
                sleepMs(livenessMs / 2 + Int64(rng.next() % UInt64(livenessMs * 2)))
                try? cluster.startNode(node)
            case 1:
                progress("fault: kill -9 coordinator, restart on the same data dir")
                cluster.signalCoordinator(SIGKILL)
                count("kill -9 coordinator")
                sleepMs(200 + Int64(rng.next() % 800))
                try? cluster.startCoordinator()
            case 2:
                progress("fault: SIGSTOP \(node) beyond the liveness timeout, then SIGCONT")
                cluster.signalNode(node, SIGSTOP)
                count("SIGSTOP pause")
                sleepMs(livenessMs + 300 + Int64(rng.next() % 500))
                cluster.signalNode(node, SIGCONT)
            default:
                progress("fault: the proxy drops, duplicates and delays messages for 2 s")
                proxy.setFaults(.hostile)
                count("message faults (proxy)")
                sleepMs(2000)
                proxy.setFaults(.none)
            }
        }
    }

    /// The HA coordinator that leads now.
    private func leaderName(_ cluster: LocalCluster) throws -> String? {
        let endpoint = try cluster.leaderCommandEndpoint()
        return cluster.topology.allCoordinators.first { LocalCluster.localCommands($0) == endpoint }
            .map { cluster.topology.processName($0) }
    }

    // MARK: History

    private func collect(cluster: LocalCluster, log: ([JournalEntry], JournalSnapshot?), coordinator: CoordinatorClient.Snapshot,
                         replicas: [ReplicaState], endedAt: Instant) throws -> History {
        let nodeEntries = cluster.topology.nodes.map(\.id).flatMap { NodeHistoryEntry.read(path: cluster.historyPath($0)) }
        let faults = faultCounts.withLock { $0 }.sorted { $0.key < $1.key }.map { FaultCount(kind: $0.key, count: $0.value) }
        return try HistoryAssembly.history(
            nodeEntries: nodeEntries, acks: acks.withLock { $0 }, stops: stops.withLock { $0 }, log: log.0,
            newestSnapshot: log.1, coordinatorState: coordinator.state, coordinatorSequence: coordinator.sequence,
            coordinatorGroupSequences: Dictionary(uniqueKeysWithValues: coordinator.groupSequences.all.map { ($0.group, $0.sequence) }),
            replicas: replicas, operations: operations.withLock { $0 }, faults: faults, endedAt: endedAt,
            partitions: partitions.withLock { $0 })
    }

    /// The command log and its newest snapshot: the journal, or in HA the log on etcd.
    private func commandLog(_ cluster: LocalCluster) throws -> ([JournalEntry], JournalSnapshot?) {
        guard cluster.topology.isHighAvailability else {
            let journal = try Journal(directory: cluster.dataDirectory, durability: .full)
            return (try journal.entries(after: 0), try journal.latestSnapshot())
        }
        let prefix = cluster.etcdPrefix
        if let host = cluster.topology.etcd?.memberHosts?.first?.host {
            // The members are reachable only from the lab: a copy of the log is made there, and read here.
            let copy = "\(cluster.runDirectory)/etcd-log-copy-\(Clock.wallMilliseconds())"
            let security = try cluster.etcdClientTLS(as: "root").map {
                ["--etcd-ca", $0.trustedCA, "--etcd-cert", $0.certificate, "--etcd-key", $0.privateKey]
            } ?? ["--etcd-plaintext"]
            let (executable, arguments) = NetworkNamespace.command(in: host, executable: options.executable, arguments: [
                "etcd-log-copy", "--etcd", cluster.etcdEndpoints.joined(separator: ","), "--prefix", prefix, "--to", copy,
            ] + security)
            let result = try runCommand(executable, arguments, timeout: 60)
            guard result.status == 0 else { throw ClusterWaitError(message: "copying the log on etcd failed: \(result.output)") }
            let journal = try Journal(directory: copy, durability: .full)
            return (try journal.entries(after: 0), try journal.latestSnapshot())
        }
        return try Blocking.run {
            try await cluster.withEtcdClient { client in
                try await EtcdCommandLog(client: client, prefix: prefix).everything(patience: .seconds(30))
            }
        }
    }
}
