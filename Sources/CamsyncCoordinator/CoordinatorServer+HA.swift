import CamsyncCoordinatorCore
import CamsyncEtcd
import Foundation
import Logging

extension CoordinatorServer {
    /// HA mode (SPEC K6; `settings.highAvailability` must be set): connects to etcd, starts the loop
    /// as a standby, calls `onServing` with the bound endpoints, and runs the `LeadershipSupervisor`
    /// until `until` returns. Then it gives the leadership up (the next coordinator takes over at
    /// once) and stops the loop.
    public func runWithEtcd(onServing: @Sendable (Endpoints) throws -> Void,
                            until: @Sendable () async -> Void) async throws {
        guard let ha = settings.highAvailability else {
            throw CoordinatorStartError.noEtcdEndpoints
        }
        let clientSettings = EtcdClient.Settings(requestTimeout: .milliseconds(ha.requestTimeoutMilliseconds), tls: ha.etcdTLS)
        let logger = self.logger
        if ha.etcdTLS == nil {
            logger.warning("etcd in PLAINTEXT (--etcd-plaintext): anyone who reaches etcd's client port can read the command log, write a fake leader or grant any camera. For a lab only; see docs/OPERATIONS.md \"Certificates\"")
        }
        try await EtcdClient.with(endpoints: ha.etcd, settings: clientSettings) { client in
            let mailbox = try HAMailbox()
            let log = EtcdCommandLog(client: client, prefix: ha.prefix)
            let revoke: @Sendable (Int64) -> Void = { id in
                Task {
                    let lease = EtcdLease(id: id, ttlSeconds: 0)
                    do {
                        try await client.revoke(lease)
                        logger.info("etcd: the suspected leader's lease is revoked", metadata: ["lease": "\(lease.hex)"])
                    } catch {
                        logger.warning("etcd: could not revoke the suspected leader's lease",
                                       metadata: ["lease": "\(lease.hex)", "error": "\(error)"])
                    }
                }
            }
            let endpoints = try start(etcd: HALink(log: log, mailbox: mailbox, revoke: revoke))
            let supervisor = LeadershipSupervisor(
                client: client, log: log, settings: ha,
                address: settings.advertisedAddress(bound: endpoints) ?? .init(),
                mailbox: mailbox, logger: logger)
            do {
                try onServing(endpoints)
            } catch {
                await stopOffThread()
                throw error
            }
            let running = Task { await supervisor.run() }
            await until()
            running.cancel()
            await running.value
            await supervisor.resign()
            await stopOffThread()
        }
    }

    /// `stop()` joins the loop thread, which may be waiting on etcd: not on a task's thread.
    private func stopOffThread() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { [self] in
                stop()
                done.resume()
            }.start()
        }
    }
}
