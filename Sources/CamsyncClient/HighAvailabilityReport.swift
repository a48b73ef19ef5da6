public import CamsyncEtcd
import CamsyncWire
import Foundation
public import ZeroMQ
public import CamsyncEtcdModel

/// The HA section of `camsync ctl status` and of the web view (SPEC K6), as data: every coordinator
/// as it says of itself (role, term, applied sequence, lag behind the leader, how fast it answered)
/// and every etcd member as its Maintenance.Status says (leader or not, raft index, database size,
/// errors). Like `etcdctl endpoint status`, for the whole cluster.
public struct HighAvailabilityReport: Codable, Sendable, Equatable {
    public struct Coordinator: Codable, Sendable, Equatable {
        /// Its name (`--name`); when it did not answer, the name its endpoint has in the caller's topology
        /// or `coordinators.txt`, and the endpoint only when neither knows it.
        public var name: String
        public var endpoint: String
        /// `leading`, `standby`, `catching up`, `rebuilding`, or `unreachable`.
        public var role: String
        public var term: UInt64
        public var appliedSequence: UInt64
        /// How far its applied sequence is behind the leader's (nil without a leader or an answer).
        public var lag: UInt64?
        /// How long it took to answer, in ms (nil: it did not).
        public var answeredInMilliseconds: Int?
        /// Why it could not be asked, or the etcd trouble it reports.
        public var error: String?

        public init(name: String, endpoint: String, role: String, term: UInt64, appliedSequence: UInt64, lag: UInt64?,
                    answeredInMilliseconds: Int?, error: String?) {
            self.name = name
            self.endpoint = endpoint
            self.role = role
            self.term = term
            self.appliedSequence = appliedSequence
            self.lag = lag
            self.answeredInMilliseconds = answeredInMilliseconds
            self.error = error
        }
    }

    /// The leading coordinator's name, if one leads.
    public var leader: String?
    public var coordinators: [Coordinator]
    /// Empty for an embedded (single, SQLite) coordinator.
    public var etcd: [EtcdMemberStatus]

    public init(leader: String?, coordinators: [Coordinator], etcd: [EtcdMemberStatus]) {
        self.leader = leader
        self.coordinators = coordinators
        self.etcd = etcd
    }

    /// The first line: who leads, in which term, and whether etcd is healthy.
    public var headline: String {
        let leading = coordinators.first { $0.role == "leading" }
        let asked = coordinators.filter { $0.answeredInMilliseconds != nil }.map(\.name)
        var line = leading.map { "leader \($0.name) in term \($0.term), sequence \($0.appliedSequence)" }
            ?? (asked.isEmpty ? "no coordinator answered" : "none of the coordinators that answered leads (\(asked.joined(separator: ", ")))")
        if !etcd.isEmpty {
            let healthy = etcd.filter { $0.reachable && $0.errors.isEmpty }.count
            let raftLeader = etcd.first { $0.isLeader }.map { ", raft leader \($0.endpoint)" } ?? ", no raft leader"
            line += "; etcd \(healthy)/\(etcd.count) members healthy\(raftLeader)"
        }
        return line
    }

    /// Asks every coordinator at `endpoints` for its status, then the etcd members they use.
    /// Blocks the calling thread (not a cooperative pool thread) for at most about twice `timeoutMilliseconds`.
    /// `etcdTLS`: the client certificate to ask etcd with (mutual TLS, docs/OPERATIONS.md); nil: plaintext.
    /// `names`: the coordinator's name at each endpoint, for one that does not answer (with CURVE, the
    /// names `coordinators.txt` gives are known too).
    public static func gather(context: ZMQContext, endpoints: [String], names: [String: String] = [:], curve: ClientCurve?,
                              timeoutMilliseconds: Int = 1_000, etcdTLS: EtcdClientTLS? = nil) -> HighAvailabilityReport {
        var coordinators: [Coordinator] = []
        var etcdEndpoints: [String] = []
        for endpoint in endpoints {
            let started = DispatchTime.now().uptimeNanoseconds
            do {
                let client = try CoordinatorClient(context: context, endpoint: endpoint, curve: curve)
                defer { client.close() }
                let status = try client.coordinatorStatus(timeoutMilliseconds: timeoutMilliseconds)
                let elapsed = Int((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
                if etcdEndpoints.isEmpty { etcdEndpoints = status.etcdEndpoints }
                coordinators.append(Coordinator(
                    name: status.coordinator.name.isEmpty ? "coordinator" : status.coordinator.name, endpoint: endpoint,
                    role: status.role, term: status.term, appliedSequence: status.appliedSequence, lag: nil,
                    answeredInMilliseconds: elapsed, error: status.trouble.isEmpty ? nil : status.trouble))
            } catch {
                let name = names[endpoint] ?? curve?.coordinators.entries.first { $0.commandEndpoint == endpoint }?.name ?? endpoint
                coordinators.append(Coordinator(name: name, endpoint: endpoint, role: "unreachable", term: 0, appliedSequence: 0,
                                                lag: nil, answeredInMilliseconds: nil, error: "\(error)"))
            }
        }
        // Several claim to lead only across a change: the highest term leads.
        let leader = coordinators.filter { $0.role == "leading" }.max { $0.term < $1.term }
        if let leader {
            for index in coordinators.indices where coordinators[index].answeredInMilliseconds != nil {
                coordinators[index].lag = leader.appliedSequence > coordinators[index].appliedSequence
                    ? leader.appliedSequence - coordinators[index].appliedSequence : 0
            }
        }
        let members = (try? etcdEndpoints.map { try EtcdEndpoint(parsing: $0) }) ?? []
        var etcd = members.isEmpty ? [] : Self.blocking(timeoutMilliseconds: timeoutMilliseconds, members, tls: etcdTLS)
        if etcdTLS == nil {
            // A member that closes a plaintext connection before HTTP/2 begins wants TLS: say how to give it.
            for index in etcd.indices where etcd[index].errors.contains(where: { $0.contains("connection preface") }) {
                etcd[index].errors.append("it speaks TLS: ask with -f TOPOLOGY (its run directory's certificates), "
                    + "or --etcd-ca, --etcd-cert and --etcd-key")
            }
        }
        return HighAvailabilityReport(leader: leader?.name, coordinators: coordinators, etcd: etcd)
    }

    private static func blocking(timeoutMilliseconds: Int, _ members: [EtcdEndpoint], tls: EtcdClientTLS?) -> [EtcdMemberStatus] {
        let unanswered = members.map { EtcdMemberStatus(endpoint: $0.description, errors: ["no answer within \(timeoutMilliseconds * 3) ms"],
                                                        reachable: false) }
        return withEtcd(members, timeoutMilliseconds: timeoutMilliseconds, tls: tls, otherwise: unanswered) { await $0.memberStatuses() }
    }

    /// The command endpoints of the coordinators that are candidates in `election` on etcd now (each
    /// candidate's key holds its address); empty when etcd does not answer.
    public static func candidates(etcd members: [EtcdEndpoint], election: String, timeoutMilliseconds: Int = 1_000,
                                  tls: EtcdClientTLS? = nil) -> [String] {
        withEtcd(members, timeoutMilliseconds: timeoutMilliseconds, tls: tls, otherwise: []) { client in
            let keys = try await client.range(prefix: election + "/")
            return keys.keyValues.compactMap { try? Camsync_V1_CoordinatorAddress(serializedBytes: $0.value).commandEndpoint }
        }
    }

    /// Runs `body` with an etcd client on the concurrency pool and waits for it on this thread (a
    /// dedicated or main thread), at most three times `timeoutMilliseconds`.
    static func withEtcd<T: Sendable>(_ members: [EtcdEndpoint], timeoutMilliseconds: Int, tls: EtcdClientTLS?, otherwise: T,
                                      _ body: @escaping @Sendable (EtcdClient) async throws -> T) -> T {
        let result = Locked<T>(otherwise)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let settings = EtcdClient.Settings(requestTimeout: .milliseconds(timeoutMilliseconds),
                                               maximumReconnectBackoff: .milliseconds(200), tls: tls)
            if let value = try? await EtcdClient.with(endpoints: members, settings: settings, body) {
                result.withLock { $0 = value }
            }
            done.signal()
        }
        _ = done.wait(timeout: .now() + .milliseconds(timeoutMilliseconds * 3))
        return result.withLock { $0 }
    }
}

extension HighAvailabilityReport {
    /// `ctl status`'s rows: one per coordinator.
    public var coordinatorRows: [[String]] {
        coordinators.map { c in
            [c.name, c.endpoint, c.role, c.answeredInMilliseconds == nil ? "-" : "\(c.term)",
             c.answeredInMilliseconds == nil ? "-" : "\(c.appliedSequence)", c.lag.map { "\($0)" } ?? "-",
             c.answeredInMilliseconds.map { "\($0) ms" } ?? "-", c.error ?? "-"]
        }
    }

    /// One per etcd member.
    public var etcdRows: [[String]] {
        etcd.map { m in
            guard m.reachable else { return [m.endpoint, "-", "-", "-", "-", "-", "-", "-", m.errors.joined(separator: "; ")] }
            return [m.endpoint, m.memberID, m.isLeader ? "yes" : "no", "\(m.raftTerm)", "\(m.raftIndex)", "\(m.raftAppliedIndex)",
                    Self.bytes(m.databaseSizeBytes), m.version, m.errors.isEmpty ? "-" : m.errors.joined(separator: "; ")]
        }
    }

    static func bytes(_ count: Int64) -> String {
        count >= 1 << 20 ? String(format: "%.1f MB", Double(count) / Double(1 << 20)) : "\(count / 1024) kB"
    }
}
