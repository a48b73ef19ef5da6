import Foundation
public import CamsyncWire
public import ZeroMQ

/// The CURVE keys of a local cluster, kept under `RUNDIR/keys` (secret files 0600): a pair per
/// coordinator (`coordinator.key` for a single one, `coordinator-NAME.key` for each of an HA cluster),
/// listed with their endpoints in `coordinators.txt` (the coordinators nodes and clients believe,
/// `TrustedCoordinators`), one pair per node (bound to its id in `nodes.txt`) and the admin pair the CLI uses.
public struct ClusterKeys: Sendable {
    public let directory: String
    /// Each coordinator's pair, by process name (`coordinator` for a single one).
    public let coordinators: [String: CurveKeyPair]
    public let admin: CurveKeyPair
    public let nodes: [String: CurveKeyPair]
    /// What `coordinators.txt` lists: every coordinator, its key and the endpoints nodes connect to.
    public let trusted: TrustedCoordinators

    public func path(_ file: String) -> String { "\(directory)/\(file)" }

    /// The single coordinator's pair (the first one's in HA mode).
    public var coordinator: CurveKeyPair { coordinators["coordinator"] ?? coordinators[trusted.entries[0].name]! }

    /// The secret and public key files of coordinator `name` (a process name).
    public static func coordinatorKeyName(_ name: String) -> String { name == "coordinator" ? name : "coordinator-\(name)" }
    public func coordinatorSecretKeyPath(_ name: String) -> String { path("\(Self.coordinatorKeyName(name)).key") }
    public func coordinatorPublicKeyPath(_ name: String) -> String { path("\(Self.coordinatorKeyName(name)).pub") }
    public var trustedCoordinatorsPath: String { path("coordinators.txt") }

    /// Loads the keys in `directory`, generating any that are missing, and writes `nodes.txt` and
    /// `coordinators.txt` for `coordinators` (process name, the command and event endpoints nodes use).
    /// `retiring`: node id → its previous public key, listed in `nodes.txt` before the new one so that
    /// the coordinators admit both while the node rotates.
    public static func loadOrGenerate(directory: String, nodes ids: [String],
                                      coordinators: [(name: String, commands: String, events: String)],
                                      retiring: [String: String] = [:]) throws -> ClusterKeys {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        func pair(_ name: String) throws -> CurveKeyPair {
            let secretPath = "\(directory)/\(name).key"
            if let text = try? String(contentsOfFile: secretPath, encoding: .utf8),
               let pair = try? CurveKeyPair(secretKey: text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return pair
            }
            let pair = try CurveKeyPair.generate()
            guard FileManager.default.createFile(atPath: secretPath, contents: Data((pair.secretKey + "\n").utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw TopologyError(message: "cannot write the key file \(secretPath)")
            }
            try (pair.publicKey + "\n").write(toFile: "\(directory)/\(name).pub", atomically: true, encoding: .utf8)
            return pair
        }
        var coordinatorPairs: [String: CurveKeyPair] = [:]
        var entries: [TrustedCoordinators.Entry] = []
        for c in coordinators {
            let keys = try pair(coordinatorKeyName(c.name))
            coordinatorPairs[c.name] = keys
            entries.append(.init(name: c.name, publicKey: keys.publicKey, commandEndpoint: c.commands, eventEndpoint: c.events))
        }
        let trusted = TrustedCoordinators(entries: entries)
        try trusted.fileText.write(toFile: "\(directory)/coordinators.txt", atomically: true, encoding: .utf8)
        let admin = try pair("admin")
        var nodes: [String: CurveKeyPair] = [:]
        for id in ids { nodes[id] = try pair(id) }
        let bindings = nodes.sorted { $0.key < $1.key }.map { id, pair in
            let old = retiring[id].map { "# \(id) rotates: its old key (remove this line once it runs on the new one)\n\(id) \($0)\n" }
            return (old ?? "") + "\(id) \(pair.publicKey)"
        }.joined(separator: "\n")
        try ("# node-id public-key: each node may only speak as the id its key is bound to\n" + bindings + "\n")
            .write(toFile: "\(directory)/nodes.txt", atomically: true, encoding: .utf8)
        return ClusterKeys(directory: directory, coordinators: coordinatorPairs, admin: admin, nodes: nodes, trusted: trusted)
    }
}
