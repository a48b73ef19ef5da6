import ArgumentParser
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncEtcdModel
import Foundation

/// Copies a cluster's command log on etcd (its newest snapshot and every command after it that etcd
/// still holds) into a SQLite journal directory. The HA soak in network namespaces runs it in a
/// namespace that reaches etcd, and reads the copy as it reads an embedded coordinator's journal.
struct EtcdLogCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "etcd-log-copy",
        abstract: "Copy a camsync cluster's command log on etcd into a journal directory (the HA soak's reader).",
        shouldDisplay: false)

    @Option(help: "etcd client URLs, comma-separated.") var etcd: String
    @OptionGroup var etcdSecurity: EtcdSecurityOptions
    @Option(help: "The camsync cluster's key prefix on etcd.") var prefix: String
    @Option(help: "The journal directory to write (created; it must hold no journal yet).") var to: String

    func validate() throws {
        do { _ = try EtcdEndpoint.list(parsing: etcd) } catch { throw ValidationError("--etcd: \(error)") }
        _ = try etcdSecurity.tls()
    }

    @Option(help: "How long to wait for etcd to have a raft leader (after a heal, or under load, its members may be electing one).")
    var waitSeconds: Int = 30

    func run() async throws {
        let settings = EtcdClient.Settings(requestTimeout: .seconds(10), tls: try etcdSecurity.tls())
        let (entries, snapshot) = try await EtcdClient.with(endpoints: try EtcdEndpoint.list(parsing: etcd), settings: settings) { client in
            try await EtcdCommandLog(client: client, prefix: prefix).everything(patience: .seconds(waitSeconds))
        }
        try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true)
        let journal = try Journal(directory: to, durability: .full)
        guard try journal.lastSequence() == 0 else { throw ValidationError("--to \(to) holds a journal already") }
        // The snapshot first: written into an empty journal, it removes no command.
        if let snapshot { try journal.writeSnapshot(snapshot) }
        try journal.append(entries)
        print("copied \(entries.count) commands\(snapshot.map { " and the snapshot at \($0.sequence)" } ?? "") to \(to)")
    }
}
