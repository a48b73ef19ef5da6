import Foundation
public import ZeroMQ

/// The CURVE keys of a local cluster, kept under `RUNDIR/keys` (secret files 0600):
/// the coordinator's pair, one pair per node (bound to its id in `nodes.txt`) and the admin pair the CLI uses.
public struct ClusterKeys: Sendable {
    public let directory: String
    public let coordinator: CurveKeyPair
    public let admin: CurveKeyPair
    public let nodes: [String: CurveKeyPair]

    public func path(_ file: String) -> String { "\(directory)/\(file)" }

    /// Loads the keys in `directory`, generating any that are missing.
    public static func loadOrGenerate(directory: String, nodes ids: [String]) throws -> ClusterKeys {
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
                throw ClusterWaitError(message: "cannot write the key file \(secretPath)")
            }
            try (pair.publicKey + "\n").write(toFile: "\(directory)/\(name).pub", atomically: true, encoding: .utf8)
            return pair
        }
        let coordinator = try pair("coordinator")
        let admin = try pair("admin")
        var nodes: [String: CurveKeyPair] = [:]
        for id in ids { nodes[id] = try pair(id) }
        let bindings = nodes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.publicKey)" }.joined(separator: "\n")
        try ("# node-id public-key: each node may only speak as the id its key is bound to\n" + bindings + "\n")
            .write(toFile: "\(directory)/nodes.txt", atomically: true, encoding: .utf8)
        return ClusterKeys(directory: directory, coordinator: coordinator, admin: admin, nodes: nodes)
    }
}
