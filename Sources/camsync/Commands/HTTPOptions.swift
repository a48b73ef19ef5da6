import ArgumentParser
import CamsyncClient
import CamsyncEtcd
import CamsyncWeb
import Logging
import CamsyncEtcdModel

/// `--http`: the daemon's read-only HTTP side (`/metrics`; on the coordinator also the live web view).
/// Off unless given, so that many daemons on one host never race for a port; the address is
/// loopback unless a host is named (docs/OPERATIONS.md "Metrics").
struct HTTPOptions: ParsableArguments {
    @Option(name: .customLong("http"),
            help: "Serve /metrics (and, on the coordinator, the web view) on HOST:PORT, :PORT or PORT (loopback); off if not given.")
    var address: String?

    func validate() throws {
        if let address {
            do {
                _ = try HTTPAddress(parsing: address)
            } catch {
                throw ValidationError("--http: \(error)")
            }
        }
    }

    /// Bootstraps the metrics backend and makes the server, or nil without `--http`. Call before the
    /// daemon creates its metrics.
    func server(follow: (@Sendable () -> (commandEndpoint: String, eventEndpoint: String)?)? = nil,
                curve: ClientCurve? = nil, highAvailability: (etcd: [EtcdEndpoint], election: String, tls: EtcdClientTLS?)? = nil,
                logger: Logger) throws -> ObservationServer? {
        guard let address else { return nil }
        let registry = MetricsExport.bootstrap()
        return ObservationServer(address: try HTTPAddress(parsing: address), registry: registry, follow: follow, curve: curve,
                                 highAvailability: highAvailability, logger: logger)
    }
}
