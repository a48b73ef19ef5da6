import GRPCCore
import GRPCNIOTransportHTTP2
import NIOCore
import NIOPosix
import Synchronization
public import CamsyncEtcdModel

/// A client of an etcd v3 cluster over gRPC (grpc-swift-2, HTTP/2 on SwiftNIO, generated stubs).
///
/// It holds one connection per member and sends each request to the member that answered last,
/// moving on to the next member when one is unreachable or has lost its raft leader
/// ("no leader": every request carries etcd's `hasleader` metadata, so a member cut off from the
/// quorum refuses at once instead of waiting). Run it with `EtcdClient.with(endpoints:)`, which
/// owns the connections for the duration of the body.
///
/// Retries: reads, lease renewals, watches and campaigns are retried on the next member for
/// unreachable / no-leader / timed-out answers; writes only for unreachable and no-leader
/// (etcd refused before proposing). A write that timed out has an unknown outcome and is
/// reported as `.timedOut`, never retried here.
public final class EtcdClient: Sendable {
    public struct Settings: Sendable {
        /// Deadline of each unary request (a campaign waits as long as it takes).
        public var requestTimeout: Duration
        /// Longest wait between reconnection attempts to a member that is down.
        public var maximumReconnectBackoff: Duration
        /// Mutual TLS (the default of every HA deployment); nil: plaintext, for a lab only.
        public var tls: EtcdClientTLS?

        public init(requestTimeout: Duration = .seconds(2), maximumReconnectBackoff: Duration = .milliseconds(500),
                    tls: EtcdClientTLS? = nil) {
            self.requestTimeout = requestTimeout
            self.maximumReconnectBackoff = maximumReconnectBackoff
            self.tls = tls
        }
    }

    typealias Transport = HTTP2ClientTransport.Posix

    /// One member: its connection and the generated service stubs over it.
    struct Member: Sendable {
        let endpoint: EtcdEndpoint
        let grpc: GRPCClient<Transport>
        var kv: Etcdserverpb_KV.Client<Transport> { .init(wrapping: grpc) }
        var lease: Etcdserverpb_Lease.Client<Transport> { .init(wrapping: grpc) }
        var watch: Etcdserverpb_Watch.Client<Transport> { .init(wrapping: grpc) }
        var election: V3electionpb_Election.Client<Transport> { .init(wrapping: grpc) }
        var maintenance: Etcdserverpb_Maintenance.Client<Transport> { .init(wrapping: grpc) }
        var auth: Etcdserverpb_Auth.Client<Transport> { .init(wrapping: grpc) }
    }

    public let endpoints: [EtcdEndpoint]
    public let settings: Settings
    let members: [Member]
    /// The one event loop every connection of this client runs on, as a task executor: a task that
    /// prefers it sends its requests and takes their answers on that thread, with no hop to Swift's
    /// cooperative pool and back in between (the HA leader's commits: `EtcdLogExecutor`).
    public let taskExecutor: EventLoopTaskExecutor
    /// Index of the member that answered last: requests start there.
    private let preferred = Atomic<Int>(0)

    /// etcd's "require leader" metadata: a member without a raft leader answers "no leader" at once.
    let metadata: Metadata = ["hasleader": "true"]

    private init(endpoints: [EtcdEndpoint], settings: Settings) throws {
        guard !endpoints.isEmpty else { throw EtcdError(.unavailable, "no etcd endpoints given") }
        self.endpoints = endpoints
        self.settings = settings
        var config = HTTP2ClientTransport.Posix.Config.defaults
        config.backoff.max = settings.maximumReconnectBackoff
        config.backoff.initial = min(config.backoff.initial, settings.maximumReconnectBackoff)
        // A connection stalled by a partition is found within time + timeout, not TCP's minutes.
        // Only while calls are open: etcd answers pings without streams with GOAWAY (too_many_pings).
        config.connection.keepalive = .init(time: .seconds(10), timeout: .seconds(3), allowWithoutCalls: false)
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        self.taskExecutor = EventLoopTaskExecutor(eventLoop)
        self.members = try endpoints.map { endpoint in
            let transport = try HTTP2ClientTransport.Posix(
                target: endpoint.isIPv4 ? .ipv4(address: endpoint.host, port: endpoint.port)
                                        : .dns(host: endpoint.host, port: endpoint.port),
                transportSecurity: settings.tls?.transportSecurity ?? .plaintext,
                config: config,
                eventLoopGroup: eventLoop
            )
            return Member(endpoint: endpoint, grpc: GRPCClient(transport: transport))
        }
    }

    /// Connects to `endpoints`, runs `body` with the client, then closes every connection.
    public static func with<Result: Sendable>(
        endpoints: [EtcdEndpoint],
        settings: Settings = Settings(),
        _ body: (EtcdClient) async throws -> Result
    ) async throws -> Result {
        let client = try EtcdClient(endpoints: endpoints, settings: settings)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for member in client.members {
                group.addTask { try await member.grpc.runConnections() }
            }
            defer {
                for member in client.members { member.grpc.beginGracefulShutdown() }
            }
            return try await body(client)
        }
    }

    /// The member requests go to first (the last one that answered).
    public var currentEndpoint: EtcdEndpoint { members[preferred.load(ordering: .relaxed)].endpoint }

    /// Unary call options: the request deadline, no waiting for a connection that is down, and
    /// replies up to `maximumMessageBytes` (a page of the command log: 64 keys of up to 1 MiB).
    var unaryOptions: CallOptions {
        var options = CallOptions.defaults
        options.timeout = settings.requestTimeout
        options.waitForReady = false
        // grpc-swift-nio-transport checks what it reads against the request limit (4 MiB by default).
        options.maxRequestMessageBytes = Self.maximumMessageBytes
        options.maxResponseMessageBytes = Self.maximumMessageBytes
        return options
    }

    /// The largest message this client sends or accepts (etcd itself refuses requests over 1.5 MiB).
    public static let maximumMessageBytes = 80 << 20

    /// Streaming call options: no deadline (watches and campaigns last as long as they need).
    var streamOptions: CallOptions {
        var options = CallOptions.defaults
        options.waitForReady = false
        return options
    }

    enum Retry {
        /// Safe to repeat: retried on unreachable, no-leader and timed-out answers.
        case idempotent
        /// A write: retried only where etcd cannot have applied it (unreachable, no leader).
        case write
    }

    /// Runs `operation` against the preferred member, then the others in turn while the answers
    /// say "try another member" (see `Retry`). Throws the most telling error when all fail.
    func call<R: Sendable>(_ what: String, retry: Retry, _ operation: (Member) async throws -> R) async throws -> R {
        let start = preferred.load(ordering: .relaxed)
        var failures: [EtcdError] = []
        for attempt in 0..<members.count {
            let index = (start + attempt) % members.count
            let member = members[index]
            do {
                let result = try await operation(member)
                preferred.store(index, ordering: .relaxed)
                return result
            } catch {
                let failure = try EtcdError.classify(error, member: member.endpoint, what: what)
                let next = (index + 1) % members.count
                guard failure.suggestsFailover || (retry == .idempotent && failure.code == .timedOut) else {
                    if failure.code == .timedOut { preferred.store(next, ordering: .relaxed) }
                    throw failure
                }
                preferred.store(next, ordering: .relaxed)
                failures.append(failure)
            }
        }
        throw EtcdError.summary(of: failures, what: what)
    }
}
