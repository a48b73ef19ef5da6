import ArgumentParser
import CamsyncClient
import CamsyncEtcd
import Foundation
import ZeroMQ

struct CtlStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Nodes, cameras, sessions, PiP windows, layout and audio sessions, as the coordinator sees them.",
        discussion: "Example: camsync ctl status -f deploy/topologies/lab.yaml   (add --json for scripts)")

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "Print JSON instead of tables.") var json = false
    @Option(help: "Seconds to wait for the coordinator.") var timeout: Double = 5
    @Option(help: "HA: the CA (PEM) of the etcd members, to show their status over mutual TLS.") var etcdCa: String?
    @Option(help: "HA: a client certificate (PEM) etcd accepts (e.g. root's from `camsync keygen --etcd-certs`).") var etcdCert: String?
    @Option(help: "HA: the private key (PEM) of --etcd-cert.") var etcdKey: String?

    func validate() throws {
        let given = [etcdCa, etcdCert, etcdKey].compactMap { $0 }.count
        guard given == 0 || given == 3 else { throw ValidationError("--etcd-ca, --etcd-cert and --etcd-key go together") }
    }

    /// The etcd client certificate given, if any (without it etcd members are asked in plaintext).
    var etcdTLS: EtcdClientTLS? {
        guard let etcdCa, let etcdCert, let etcdKey else { return nil }
        return EtcdClientTLS(trustedCA: etcdCa, certificate: etcdCert, privateKey: etcdKey)
    }

    func run() throws {
        let resolved = try cluster.resolve()
        // Every coordinator and etcd member first: it is what an operator needs most when nothing leads.
        let ha = HighAvailabilityReport.gather(context: try ZMQContext(), endpoints: resolved.commandEndpoints,
                                               curve: resolved.curve, timeoutMilliseconds: min(2_000, Int(timeout * 1000)),
                                               etcdTLS: etcdTLS)
        let snapshot: CoordinatorClient.Snapshot
        do {
            snapshot = try resolved.withLeader(timeoutMilliseconds: Int(timeout * 1000)) { client, timeout in
                try client.snapshot(timeoutMilliseconds: timeout)
            }
        } catch {
            if json {
                try Self.printJSON(["highAvailability": ha])
            } else {
                print(ha.headline + "\n" + Self.renderHighAvailability(ha))
            }
            if let error = error as? ClientError, error.refusal != nil {
                print("\(error)")
            } else {
                print("coordinator not reachable at \(resolved.commandEndpoints.joined(separator: ",")): \(error)")
            }
            throw ExitCode(2)
        }
        var report = StatusReport(state: snapshot.state, sequence: snapshot.sequence, term: snapshot.term,
                                  silence: snapshot.silence)
        report.counters = StatusReport.counterRows(snapshot.counters)
        report.highAvailability = ha
        if json {
            try Self.printJSON(report)
            return
        }
        print(Self.render(report))
    }

    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The HA tables: every coordinator, then every etcd member (none for an embedded coordinator).
    static func renderHighAvailability(_ ha: HighAvailabilityReport) -> String {
        var out = "\nCoordinators\n" + indent(Table.render([StatusReport.coordinatorHeader] + ha.coordinatorRows))
        if !ha.etcd.isEmpty { out += "\netcd\n" + indent(Table.render([StatusReport.etcdHeader] + ha.etcdRows)) }
        return out
    }

    static func indent(_ table: String) -> String {
        table.split(separator: "\n").map { "  \($0)" }.joined(separator: "\n") + "\n"
    }

    static func render(_ report: StatusReport) -> String {
        var out = report.highAvailability.map { $0.headline + "\n" } ?? ""
        out += "coordinator term \(report.term), sequence \(report.sequence)\n"
        for (title, header, rows) in [
            ("Nodes", StatusReport.nodeHeader, report.nodes), ("Cameras", StatusReport.cameraHeader, report.cameras),
            ("Capture sessions", StatusReport.sessionHeader, report.sessions),
            ("Picture in Picture", StatusReport.pipHeader, report.pip), ("Layout", StatusReport.layoutHeader, report.layout),
            ("Audio sessions", StatusReport.audioHeader, report.audio),
            ("Coordinator", StatusReport.counterHeader, report.counters),
        ] {
            out += "\n\(title)\n"
            out += rows.isEmpty ? "  (none)\n" : indent(Table.render([header] + rows))
        }
        if let ha = report.highAvailability { out += renderHighAvailability(ha) }
        return out
    }
}
