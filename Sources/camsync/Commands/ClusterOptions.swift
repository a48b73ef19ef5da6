import ArgumentParser
import CamsyncClient
import CamsyncProcessLab
import CamsyncTopology
import CamsyncWire
import Foundation
import ZeroMQ

/// How a client finds a cluster: a topology file (and its run directory, for keys and control
/// sockets), or explicit endpoints.
struct ClusterOptions: ParsableArguments {
    @Option(name: [.customShort("f"), .long], help: "The cluster's topology file (finds endpoints, keys and control sockets).")
    var topology: String?
    @Option(help: "The run directory `cluster up` used (default: /tmp/camsync-NAME or $CAMSYNC_RUN_DIR/NAME).")
    var runDir: String?
    @Option(help: "The coordinator's command endpoint (without --topology); HA: several, comma-separated.")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "The coordinator's event endpoint (without --topology); HA: several, comma-separated.")
    var events = "tcp://127.0.0.1:5556"
    @Flag(help: "HA: ask the first coordinator only; a standby's NOT_LEADER is shown, not followed to the leader.")
    var noFollowLeader = false
    @Option(help: "Admin secret key file, when the cluster uses CURVE.") var adminKey: String?
    @Option(help: "The coordinator's public key file, when every coordinator serves with one key pair.") var coordinatorKey: String?
    @Option(help: """
        The coordinators' keys (CURVE, a pair per coordinator): a file of `name public-key command-endpoint event-endpoint` \
        lines; only the coordinators it lists are believed. With --topology: RUNDIR/keys/coordinators.txt.
        """) var coordinatorKeys: String?
    @Option(help: "A node's control endpoint as NODE=ENDPOINT (repeatable; without --topology).") var control: [String] = []

    struct Resolved {
        /// The first coordinator's command endpoint (the one asked first).
        var commandEndpoint: String
        /// Every coordinator's command endpoint, in order (HA: several).
        var commandEndpoints: [String] = []
        /// Every coordinator's event endpoint, comma-separated (an observer's SUB connects to all of them).
        var eventEndpoint: String
        var curve: ClientCurve?
        var controlEndpoints: [String: String]
        var topology: Topology?
        var runDirectory: String?
        var followsLeader = true
    }

    func resolve() throws -> Resolved {
        let given = coordinator.split(separator: ",").map(String.init)
        var resolved = Resolved(commandEndpoint: given.first ?? coordinator, commandEndpoints: given, eventEndpoint: events,
                                curve: nil, controlEndpoints: [:], topology: nil, runDirectory: runDir)
        resolved.followsLeader = !noFollowLeader
        if let path = topology {
            let topology = try Topology(path: path)
            let run = runDir ?? RunDirectory.default(for: topology).path
            resolved.topology = topology
            resolved.runDirectory = run
            resolved.commandEndpoints = topology.allCoordinators.map { $0.localCommands ?? $0.commands }
            resolved.commandEndpoint = resolved.commandEndpoints[0]
            resolved.eventEndpoint = topology.allCoordinators.map { $0.localEvents ?? $0.events }.joined(separator: ",")
            for node in topology.nodes {
                resolved.controlEndpoints[node.id] = node.control ?? "ipc://\(run)/\(node.id).sock"
            }
            // `cluster up` ran here (its coordinators' logs are here) and none of them runs now: say so
            // at once, instead of waiting on endpoints nobody listens to.
            let names = topology.coordinatorProcessNames
            let directory = RunDirectory(path: run)
            if names.allSatisfy({ FileManager.default.fileExists(atPath: directory.logPath($0)) }),
               !directory.entries().contains(where: { $0.alive && names.contains($0.name) }) {
                throw ClusterDown(topology: topology.name, topologyPath: path, runDirectory: run, coordinator: names[0])
            }
            if topology.security?.curve == true {
                let keys = "\(run)/keys"
                if coordinatorKey == nil, coordinatorKeys == nil, !FileManager.default.fileExists(atPath: "\(keys)/coordinators.txt") {
                    throw NoClusterHere(topology: topology.name, topologyPath: path, runDirectory: run, chosenByOption: runDir != nil)
                }
                let trusted = try coordinatorKey.map { TrustedCoordinators.shared(try readKey($0, what: "coordinator public")) }
                    ?? LocalCluster.trustedHere(topology, try readTrustedCoordinators(coordinatorKeys ?? "\(keys)/coordinators.txt"))
                resolved.curve = try curve(secret: adminKey ?? "\(keys)/admin.key", trusting: trusted)
            }
        }
        if let adminKey, resolved.curve == nil {
            switch (coordinatorKey, coordinatorKeys) {
            case (let file?, nil): resolved.curve = try curve(secret: adminKey, trusting: .shared(try readKey(file, what: "coordinator public")))
            case (nil, let file?): resolved.curve = try curve(secret: adminKey, trusting: try readTrustedCoordinators(file))
            case (nil, nil): throw ValidationError("--admin-key needs --coordinator-keys (or --coordinator-key)")
            case (_?, _?): throw ValidationError("give --coordinator-keys or --coordinator-key, not both")
            }
        }
        for pair in control {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--control takes NODE=ENDPOINT, not '\(pair)'") }
            resolved.controlEndpoints[String(parts[0])] = String(parts[1])
        }
        return resolved
    }

    private func curve(secret: String, trusting coordinators: TrustedCoordinators) throws -> ClientCurve {
        let secretKey = try readKey(secret, what: "admin secret")
        let pair = try CurveKeyPair(secretKey: secretKey)
        return ClientCurve(publicKey: pair.publicKey, secretKey: secretKey, coordinators: coordinators)
    }
}

extension ClusterOptions.Resolved {
    /// Runs `request` on the coordinator that leads (SPEC K6): the coordinators are asked in turn, and
    /// a standby's NOT_LEADER naming the leader is followed once (`LeaderFollowing`; with a topology
    /// the leader's name maps to its local endpoint). With --no-follow-leader: the first coordinator only.
    func withLeader<T>(timeoutMilliseconds: Int = 5_000, _ request: (CoordinatorClient, Int) throws -> T) throws -> T {
        let context = try ZMQContext()
        guard followsLeader else {
            let client = try CoordinatorClient(context: context, endpoint: commandEndpoint, sender: "admin", curve: curve)
            defer { client.close() }
            return try request(client, timeoutMilliseconds)
        }
        let reach: (Camsync_V1_CoordinatorAddress) -> String = topology.map { LocalCluster.reach($0) } ?? { $0.commandEndpoint }
        return try LeaderFollowing.run(context: context, endpoints: commandEndpoints, curve: curve,
                                       timeoutMilliseconds: timeoutMilliseconds, reach: reach, request)
    }

    /// The command endpoint of the coordinator that leads (found as `withLeader` does).
    func leaderCommandEndpoint(timeoutMilliseconds: Int = 5_000) throws -> String {
        try withLeader(timeoutMilliseconds: timeoutMilliseconds) { client, timeout in
            _ = try client.snapshot(timeoutMilliseconds: timeout)
            return client.endpoint
        }
    }

    func controlEndpoint(_ node: String) throws -> String {
        if let endpoint = controlEndpoints[node] { return endpoint }
        if controlEndpoints.isEmpty {
            return "ipc://\(NSTemporaryDirectory())camsync-\(node).sock"
        }
        throw ValidationError("no node '\(node)' in this cluster; known nodes: \(controlEndpoints.keys.sorted().joined(separator: ", "))")
    }
}

/// A topology's cluster was never brought up from this run directory (its keys are not there): what
/// `ctl -f` says instead of the missing file's name, without a usage line.
struct NoClusterHere: Error, CustomStringConvertible {
    var topology: String
    var topologyPath: String
    var runDirectory: String
    var chosenByOption: Bool

    var description: String {
        let chosen = chosenByOption ? "--run-dir chose it" : (ProcessInfo.processInfo.environment["CAMSYNC_RUN_DIR"].map {
            $0.isEmpty ? "the default for this topology" : "CAMSYNC_RUN_DIR=\($0) chose it" } ?? "the default for this topology")
        return """
            no cluster `\(topology)` runs from the run directory \(runDirectory) (\(chosen)): it holds no keys/coordinators.txt.
            Start one with `camsync cluster up \(topologyPath)`, or point at the directory it was started in: \
            the run directory is $CAMSYNC_RUN_DIR/\(topology) when CAMSYNC_RUN_DIR is set, /tmp/camsync-\(topology) \
            otherwise, or the one --run-dir names.
            """
    }
}

/// A topology's cluster ran from this run directory (its coordinators' logs are there) but none of
/// its coordinators runs now (`cluster down`, or they died): what `ctl -f` says at once.
struct ClusterDown: Error, CustomStringConvertible {
    var topology: String
    var topologyPath: String
    var runDirectory: String
    /// A coordinator's process name, for the `cluster logs` hint.
    var coordinator: String

    var description: String {
        """
        cluster `\(topology)` is not running: none of its coordinators runs from \(runDirectory) (their logs \
        are there, from an earlier `cluster up`). Start it with `camsync cluster up \(topologyPath)`; \
        `camsync cluster logs \(topologyPath) \(coordinator)` shows how it ended.
        """
    }
}
