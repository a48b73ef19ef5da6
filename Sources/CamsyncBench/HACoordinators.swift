import CamsyncProcessLab
import CamsyncEtcd
import CamsyncRuntime
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The HA benchmarks' cluster (SPEC K6): a 3-member loopback etcd (`EtcdCluster`, with the given raft
/// timing) and `count` `camsync coordinator --etcd` processes on it, named c0, c1, …. Finds the
/// leader by asking each coordinator for a snapshot (standbys answer NOT_LEADER). `stop()` stops
/// everything; the processes are registered with `ChildProcesses` meanwhile. By default etcd runs
/// as `cluster up` runs it: mutual TLS, auth on, each coordinator a user whose role holds the prefix.
/// With `keys`, the deployed configuration: CURVE on every coordinator's sockets, the coordinators
/// sharing the cluster's key pair (a node's `coordinators: shared`), admitting the `admitting` nodes'
/// keys and the bench's admin key, which the probes and `curve`'s clients use.
final class HACoordinators {
    let etcd: EtcdCluster
    let coordinators: [CoordinatorProcess]
    /// The etcd key prefix of this camsync cluster (`--etcd-prefix`); the election is `<prefix>/leader`.
    let prefix = "/camsync-bench"
    let leaseSeconds: Int64
    /// The server key and the admin pair a bench client connects with (nil: lab mode, no CURVE).
    let curve: (serverKey: String, keys: CurveKeyPair)?
    private let context: ZMQContext
    private var probes: [ProtocolDealer] = []

    static func available() throws {
        guard EtcdCluster.isAvailable else { throw BenchError(EtcdCluster.unavailableMessage) }
    }

    init(_ settings: BenchSettings, directory: String, count: Int = 3, timing: EtcdCluster.Timing = .init(),
         leaseSeconds: Int64 = 2, heartbeatMs: Int64 = 500, liveness: Int64 = 3, pulseMs: Int64? = nil,
         suspicionMs: Int64? = nil, security: EtcdCluster.Security = .mutualTLS, snapshotEvery: UInt64? = nil,
         keys: FleetKeys? = nil, admitting nodes: [String] = []) throws {
        try Self.available()
        self.leaseSeconds = leaseSeconds
        curve = keys.map { (serverKey: $0.coordinator.publicKey, keys: $0.admin) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyFiles = try keys?.writeCoordinatorFiles(directory: directory, nodes: nodes)
        settings.progress("etcd: starting 3 members (heartbeat \(timing.heartbeatMilliseconds) ms, election "
            + "\(timing.electionTimeoutMilliseconds) ms), then \(count) coordinators (lease \(leaseSeconds) s)")
        let prefix = self.prefix
        let names = (0..<count).map { "c\($0)" }
        let etcd = try Blocking.run {
            let etcd = try await EtcdCluster.start(size: 3, timing: timing, security: security, parent: settings.etcdDataParent)
            if security == .mutualTLS {
                try await etcd.configureAuth([EtcdAccessGrant(prefix: prefix, role: "camsync-bench", users: names)])
            }
            return etcd
        }
        self.etcd = etcd
        for index in etcd.members.indices { if let pid = etcd.pid(index) { ChildProcesses.register(pid) } }
        let urls = etcd.members.map(\.clientURL).joined(separator: ",")
        coordinators = try names.map { name in
            try CoordinatorProcess(executable: settings.executable, directory: "\(directory)/\(name)",
                options: .init(heartbeatMs: heartbeatMs, liveness: liveness, snapshotEvery: snapshotEvery, prefix: settings.coordinatorPrefix,
                               highAvailability: .init(etcd: urls, name: name, prefix: prefix, leaseSeconds: leaseSeconds,
                                                       pulseMilliseconds: pulseMs, suspicionMilliseconds: suspicionMs,
                                                       tls: try etcd.clientSettings(as: name).tls),
                               keyFiles: keyFiles))
        }
        context = try ZMQContext(ioThreads: 1)
        do {
            for coordinator in coordinators { try coordinator.launch() }
            probes = try coordinators.map { try dealer(context, $0.commandEndpoint) }
        } catch {
            stop()
            throw error
        }
    }


    /// A DEALER to `endpoint` as the bench's admin (with CURVE when the cluster has it).
    func dealer(_ context: ZMQContext, _ endpoint: String) throws -> ProtocolDealer {
        try ProtocolDealer(context: context, endpoint: endpoint, curve: curve)
    }

    /// The index of the coordinator whose command endpoint is `endpoint`.
    func index(commandEndpoint endpoint: String) -> Int? { coordinators.firstIndex { $0.commandEndpoint == endpoint } }

    /// Whether coordinator `index` leads now, by its status (nil when it did not answer within
    /// `timeoutMilliseconds`). Not by asking for a snapshot: the whole state's is megabytes at ten
    /// thousand nodes, and a probe every second, more while one is late, loaded the leader it watched.
    func leads(_ index: Int, timeoutMilliseconds: Int = 300) throws -> Bool? {
        try status(index, timeoutMilliseconds: timeoutMilliseconds).map { $0.role == "leading" }
    }

    /// Throws `UncausedLeadershipMove` when another coordinator than `index` now leads; `during`
    /// says what was under way (nobody killed a coordinator then).
    func checkLeads(_ index: Int, while during: String, directory: String) throws {
        guard try leads(index) != true else { return }
        let next = try waitForLeader()
        if next != index {
            throw UncausedLeadershipMove("c\(index) → c\(next) during \(during) (coordinator logs kept in \(directory))")
        }
    }

    /// What coordinator `index` says of itself (role, applied sequence), or nil when it did not
    /// answer within `timeoutMilliseconds`.
    func status(_ index: Int, timeoutMilliseconds: Int = 300) throws -> Camsync_V1_CoordinatorStatus? {
        guard case .coordinatorStatus(let status)? = try ask(index, .coordinatorStatusRequest(Camsync_V1_CoordinatorStatusRequest()),
                                                             timeoutMilliseconds: timeoutMilliseconds)?.body else { return nil }
        return status
    }

    /// Sends `body` as the admin to coordinator `index`; its answer, or nil after `timeoutMilliseconds`.
    private func ask(_ index: Int, _ body: Envelope.OneOf_Body, timeoutMilliseconds: Int) throws -> Envelope? {
        let probe = probes[index]
        let requestID = probe.takeRequestID()
        try probe.sendBytes(Envelope(sender: Envelope.adminSender, requestID: requestID, body: body).serializedBytes())
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
        while true {
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return nil }
            if let reply = try probe.receive(timeoutMilliseconds: Int((deadline - now) / 1_000_000) + 1),
               reply.requestID == requestID { return reply }
        }
    }

    /// Waits until one coordinator leads; returns its index.
    func waitForLeader(timeoutSeconds: Double = 30) throws -> Int {
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        while Clock.monotonicNanoseconds() < deadline {
            for index in coordinators.indices where coordinators[index].process?.isRunning == true {
                if try leads(index) == true { return index }
            }
            BenchSystem.sleep(milliseconds: 20)
        }
        let logs = coordinators.map { "--- \($0.options.highAvailability?.name ?? "")\n\($0.logTail())" }.joined(separator: "\n")
        throw BenchError("no coordinator leads after \(timeoutSeconds) s\n\(logs)")
    }

    /// Waits until coordinator `index` answers at all (it serves, as leader or standby).
    func waitUntilAnswering(_ index: Int, timeoutSeconds: Double = 30) throws {
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        while Clock.monotonicNanoseconds() < deadline {
            if try leads(index, timeoutMilliseconds: 200) != nil { return }
        }
        throw BenchError("coordinator c\(index) does not answer: \(coordinators[index].logTail())")
    }

    /// Until coordinator `index` (restarted) holds a connection from each of `connections` nodes (its
    /// descriptors, beyond the hundred or so of its own) and is quiet (under a fifth of a core over
    /// the last 100 ms: the handshakes done), calling `serve` with 100 ms to wait meanwhile. A trial
    /// that killed a leader while the last victim still took its nodes back measured two failures at
    /// once: at 10,000 nodes under CURVE, shard processes busy with those handshakes left nodes
    /// silent for a liveness timeout.
    func waitUntilSettled(_ index: Int, connections: Int, timeoutSeconds: Double = 120,
                          serving serve: (_ milliseconds: Int) throws -> Void) throws {
        let pid = coordinators[index].pid
        let deadline = Clock.monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        var last = (cpu: BenchSystem.processCPUSeconds(pid: pid) ?? 0, at: Clock.monotonicNanoseconds())
        while true {
            try serve(100)
            let now = (cpu: BenchSystem.processCPUSeconds(pid: pid) ?? 0, at: Clock.monotonicNanoseconds())
            let busy = (now.cpu - last.cpu) / max(1e-9, Double(now.at - last.at) / 1e9)
            last = now
            let descriptors = BenchSystem.openDescriptors(pid: pid) ?? 0
            if descriptors >= connections, busy < 0.2 { return }
            guard now.at < deadline else {
                throw BenchError("c\(index) did not settle within \(Int(timeoutSeconds)) s: \(descriptors) descriptors for "
                    + "\(connections) nodes, \(Int(busy * 100)) % of a core")
            }
        }
    }

    /// SIGKILL coordinator `index`; returns the monotonic instant (ns) the signal was sent.
    func kill(_ index: Int) -> UInt64 {
        let killed = Clock.monotonicNanoseconds()
        coordinators[index].stop(signal: SIGKILL)
        return killed
    }

    func restart(_ index: Int) throws { try coordinators[index].launch() }

    func stop() {
        for probe in probes { probe.close() }
        probes = []
        for coordinator in coordinators { coordinator.stop() }
        let pids = etcd.members.indices.compactMap { etcd.pid($0) }
        etcd.stop()
        for pid in pids { ChildProcesses.unregister(pid) }
    }
}
