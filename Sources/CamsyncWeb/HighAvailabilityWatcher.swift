import CamsyncClient
public import CamsyncEtcd
import Foundation
import Logging
import ZeroMQ
import CamsyncEtcdModel

/// The web view's HA panel (SPEC K6): once a second, every coordinator's own status and every etcd
/// member's, on a thread of its own (the requests block; the follower and the HTTP server do not wait
/// for them). The coordinators are this one, the candidates on etcd's election, and every one seen
/// before: a killed leader stays listed, unreachable, after the failover.
final class HighAvailabilityWatcher: @unchecked Sendable {
    /// etcd's members and the election's key prefix, in HA mode.
    struct Election: Sendable {
        var etcd: [EtcdEndpoint]
        var prefix: String
        /// The coordinator's own etcd client certificate (mutual TLS), nil for plaintext.
        var tls: EtcdClientTLS?
    }

    static let intervalMilliseconds = 1_000
    private let own: @Sendable () -> (commandEndpoint: String, eventEndpoint: String)?
    private let election: Election?
    private let feed: WebFeed
    private let curve: ClientCurve?
    private let stopped = ManagedFlag()

    init(own: @escaping @Sendable () -> (commandEndpoint: String, eventEndpoint: String)?, election: Election?,
         feed: WebFeed, curve: ClientCurve?) {
        self.own = own
        self.election = election
        self.feed = feed
        self.curve = curve
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "camsync-web-ha"
        thread.start()
    }

    func stop() { stopped.set() }

    private func run() {
        guard let context = try? ZMQContext() else { return }
        var known: [String] = []
        // Names heard from coordinators that answered: a killed one stays listed by its name.
        var names: [String: String] = [:]
        while !stopped.isSet {
            if let endpoint = own()?.commandEndpoint.split(separator: ",").first.map(String.init), !known.contains(endpoint) {
                known.insert(endpoint, at: 0)
            }
            if let election {
                for candidate in HighAvailabilityReport.candidates(etcd: election.etcd, election: election.prefix,
                                                                    timeoutMilliseconds: 500, tls: election.tls) where !known.contains(candidate) {
                    known.append(candidate)
                }
            }
            if !known.isEmpty {
                let report = HighAvailabilityReport.gather(context: context, endpoints: known, names: names, curve: curve,
                                                           timeoutMilliseconds: 500, etcdTLS: election?.tls)
                for c in report.coordinators where c.answeredInMilliseconds != nil { names[c.endpoint] = c.name }
                feed.publish(highAvailability: report, checkedAtMs: Int64(Date().timeIntervalSince1970 * 1000))
            }
            var slept = 0
            while slept < Self.intervalMilliseconds, !stopped.isSet {
                Thread.sleep(forTimeInterval: 0.05)
                slept += 50
            }
        }
    }
}
