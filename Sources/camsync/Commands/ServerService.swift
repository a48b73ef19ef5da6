import CamsyncCoordinator
import Logging
import ServiceLifecycle

/// Runs a thread-owned server under swift-service-lifecycle: start, wait for SIGTERM/SIGINT
/// (graceful shutdown), stop. The server's own loop keeps its sockets on its thread.
struct ServerService: Service {
    let name: String
    let start: @Sendable () throws -> Void
    let stop: @Sendable () -> Void

    func run() async throws {
        try start()
        try? await gracefulShutdown()
        stop()
    }

    /// Runs the service until a signal arrives; exits the process's task when done.
    /// `alongside`: services that run beside it (the HTTP server), stopped before it.
    static func runUntilSignalled(_ service: any Service, alongside: [any Service] = [], logger: Logger) async throws {
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service)] + alongside.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}

/// An HA coordinator under swift-service-lifecycle: etcd, the loop and the leadership supervisor
/// until SIGTERM/SIGINT; then the leadership is given up at once and the loop stops.
struct EtcdCoordinatorService: Service {
    let server: CoordinatorServer
    let serving: @Sendable (CoordinatorServer.Endpoints) throws -> Void

    func run() async throws {
        try await server.runWithEtcd(onServing: serving, until: { try? await gracefulShutdown() })
    }
}
