import ArgumentParser
import CamsyncClient
import CamsyncLab
import Foundation
import ZeroMQ

/// How a client finds a cluster: a topology file (and its run directory, for keys and control
/// sockets), or explicit endpoints.
struct ClusterOptions: ParsableArguments {
    @Option(name: [.customShort("f"), .long], help: "The cluster's topology file (finds endpoints, keys and control sockets).")
    var topology: String?
    @Option(help: "The run directory `cluster up` used (default: /tmp/camsync-NAME or $CAMSYNC_RUN_DIR/NAME).")
    var runDir: String?
    @Option(help: "The coordinator's command endpoint (without --topology).") var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "The coordinator's event endpoint (without --topology).") var events = "tcp://127.0.0.1:5556"
    @Option(help: "Admin secret key file, when the cluster uses CURVE.") var adminKey: String?
    @Option(help: "The coordinator's public key file, when the cluster uses CURVE.") var coordinatorKey: String?
    @Option(help: "A node's control endpoint as NODE=ENDPOINT (repeatable; without --topology).") var control: [String] = []

    struct Resolved {
        var commandEndpoint: String
        var eventEndpoint: String
        var curve: ClientCurve?
        var controlEndpoints: [String: String]
        var topology: Topology?
        var runDirectory: String?
    }

    func resolve() throws -> Resolved {
        var resolved = Resolved(commandEndpoint: coordinator, eventEndpoint: events, curve: nil,
                                controlEndpoints: [:], topology: nil, runDirectory: runDir)
        if let path = topology {
            let topology = try Topology(path: path)
            let run = runDir ?? RunDirectory.default(for: topology).path
            resolved.topology = topology
            resolved.runDirectory = run
            resolved.commandEndpoint = topology.coordinator.localCommands ?? topology.coordinator.commands
            resolved.eventEndpoint = topology.coordinator.localEvents ?? topology.coordinator.events
            for node in topology.nodes {
                resolved.controlEndpoints[node.id] = node.control ?? "ipc://\(run)/\(node.id).sock"
            }
            if topology.security?.curve == true {
                let keys = "\(run)/keys"
                resolved.curve = try curve(secret: adminKey ?? "\(keys)/admin.key", server: coordinatorKey ?? "\(keys)/coordinator.pub")
            }
        }
        if let adminKey, resolved.curve == nil {
            guard let coordinatorKey else { throw ValidationError("--admin-key needs --coordinator-key") }
            resolved.curve = try curve(secret: adminKey, server: coordinatorKey)
        }
        for pair in control {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--control takes NODE=ENDPOINT, not '\(pair)'") }
            resolved.controlEndpoints[String(parts[0])] = String(parts[1])
        }
        return resolved
    }

    private func curve(secret: String, server: String) throws -> ClientCurve {
        let secretKey = try readKey(secret, what: "admin secret")
        let pair = try CurveKeyPair(secretKey: secretKey)
        return ClientCurve(publicKey: pair.publicKey, secretKey: secretKey, serverPublicKey: try readKey(server, what: "coordinator public"))
    }
}

extension ClusterOptions.Resolved {
    func controlEndpoint(_ node: String) throws -> String {
        if let endpoint = controlEndpoints[node] { return endpoint }
        if controlEndpoints.isEmpty {
            return "ipc://\(NSTemporaryDirectory())camsync-\(node).sock"
        }
        throw ValidationError("no node '\(node)' in this cluster; known nodes: \(controlEndpoints.keys.sorted().joined(separator: ", "))")
    }
}
