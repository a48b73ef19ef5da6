import ArgumentParser
import CamsyncClient
import CamsyncEtcd
import CamsyncProcessLab
import Foundation
import ZeroMQ
import CamsyncEtcdModel

struct CtlStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Nodes, cameras, sessions, PiP windows, layout and audio sessions, as the coordinator sees them.",
        discussion: "Example: camsync ctl status -f deploy/topologies/lab.yaml   (add --json for scripts)")

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "Print JSON instead of tables.") var json = false
    @Option(help: "Seconds to wait for the coordinator.") var timeout: Double = 5
    @Option(help: "HA: the CA (PEM) of the etcd members, to show their status over mutual TLS (with -f: RUNDIR/tls/ca.crt, root.crt and root.key by default).") var etcdCa: String?
    @Option(help: "HA: a client certificate (PEM) etcd accepts (e.g. root's from `camsync keygen --etcd-certs`).") var etcdCert: String?
    @Option(help: "HA: the private key (PEM) of --etcd-cert.") var etcdKey: String?

    func validate() throws {
        let given = [etcdCa, etcdCert, etcdKey].compactMap { $0 }.count
        guard given == 0 || given == 3 else { throw ValidationError("--etcd-ca, --etcd-cert and --etcd-key go together") }
    }

    /// The etcd client certificate given; else, with `-f`, the administrator's (`root`) that `cluster up`
    /// left in the run directory's `tls/` (as `keys/` is found); else none: etcd members are asked in plaintext.
    func etcdTLS(_ resolved: ClusterOptions.Resolved) -> EtcdClientTLS? {
        if let etcdCa, let etcdCert, let etcdKey { return EtcdClientTLS(trustedCA: etcdCa, certificate: etcdCert, privateKey: etcdKey) }
        guard let topology = resolved.topology, let run = resolved.runDirectory else { return nil }
        return LocalCluster.existingEtcdClientTLS(topology, runDirectory: run)
    }

    func run() throws {
        let resolved = try cluster.resolve()
        // Every coordinator and etcd member first: it is what an operator needs most when nothing leads.
        let ha = HighAvailabilityReport.gather(context: try ZMQContext(), endpoints: resolved.commandEndpoints,
                                               names: resolved.topology.map(LocalCluster.coordinatorNames) ?? [:], curve: resolved.curve, timeoutMilliseconds: min(2_000, Int(timeout * 1000)),
                                               etcdTLS: etcdTLS(resolved))
        let snapshot: CoordinatorClient.Snapshot
        do {
            snapshot = try resolved.withLeader(timeoutMilliseconds: Int(timeout * 1000)) { client, timeout in
                try client.snapshot(timeoutMilliseconds: timeout)
            }
        } catch {
            if json {
                try Self.printJSON(["highAvailability": ha])
            } else {
                print(ha.headline + "\n" + Self.renderCoordinators(ha, counters: []))
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

    /// The coordinators' section, the same for an embedded coordinator and an HA cluster: every
    /// coordinator as it says of itself (embedded: the one), the counters of the one that answered the
    /// snapshot, then (HA) every etcd member.
    static func renderCoordinators(_ ha: HighAvailabilityReport?, counters: [[String]]) -> String {
        var out = ""
        if let ha { out += indent(Table.render([StatusReport.coordinatorHeader] + ha.coordinatorRows)) }
        if !counters.isEmpty {
            let answering = ha?.coordinators.first { $0.role == "leading" }?.name ?? "the coordinator"
            out += (out.isEmpty ? "" : "\n") + indent(Table.render([["COUNTER (\(answering))", "VALUE"]] + counters))
        }
        guard !out.isEmpty else { return "" }
        out = "\nCoordinators\n" + out
        if let ha, !ha.etcd.isEmpty { out += "\netcd\n" + indent(Table.render([StatusReport.etcdHeader] + ha.etcdRows)) }
        return out
    }

    static func indent(_ table: String) -> String {
        table.split(separator: "\n").map { "  \($0)" }.joined(separator: "\n") + "\n"
    }

    static func render(_ report: StatusReport) -> String {
        var out = report.highAvailability.map { $0.headline + "\n" } ?? ""
        // The headline names the leader's term and sequence; the state's own are said only when it
        // names none, or when the state below was read at another term or sequence than it names.
        if let leading = report.highAvailability?.coordinators.first(where: { $0.role == "leading" }) {
            if leading.term != report.term || leading.appliedSequence != report.sequence {
                out += "the state below: term \(report.term), sequence \(report.sequence)\n"
            }
        } else {
            out += "coordinator term \(report.term), sequence \(report.sequence)\n"
        }
        for (title, header, rows) in [
            ("Nodes", StatusReport.nodeHeader, report.nodes), ("Cameras", StatusReport.cameraHeader, report.cameras),
            ("Capture sessions", StatusReport.sessionHeader, report.sessions),
            ("Picture in Picture", StatusReport.pipHeader, report.pip), ("Layout", StatusReport.layoutHeader, report.layout),
            ("Audio sessions", StatusReport.audioHeader, report.audio),
        ] {
            out += "\n\(title)\n"
            out += rows.isEmpty ? "  (none)\n" : indent(Table.render([header] + rows))
        }
        return out + renderCoordinators(report.highAvailability, counters: report.counters)
    }
}
