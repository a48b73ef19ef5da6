import ArgumentParser
import CamsyncCoordinator
import CamsyncNode
import CamsyncWire
import Foundation
import ZeroMQ
import CamsyncCoordinatorCore

/// Reads a Z85 key from a file written by `camsync keygen` (first line; surrounding space ignored).
func readKey(_ path: String, what: String) throws -> String {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw ValidationError("cannot read \(what) key file \(path): \(error.localizedDescription)")
    }
    let key = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    guard CurveKeyPair.isValidZ85Key(key) else {
        throw ValidationError("\(path) does not hold a 40-character Z85 \(what) key (make one with `camsync keygen`)")
    }
    return key
}

/// Reads a `coordinators.txt` (`TrustedCoordinators`): the coordinators believed, each with its key and endpoints.
func readTrustedCoordinators(_ path: String) throws -> TrustedCoordinators {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw ValidationError("cannot read the coordinator keys file \(path): \(error.localizedDescription)")
    }
    do {
        return try TrustedCoordinators(parsing: text, file: path, isValidKey: CurveKeyPair.isValidZ85Key)
    } catch {
        throw ValidationError("\(error)")
    }
}

struct CoordinatorKeyOptions: ParsableArguments {
    @Option(help: "The coordinator's secret key file: turns CURVE on for both sockets.") var secretKey: String?
    @Option(help: """
        A file of `node-id public-key` lines: the nodes admitted, each bound to its key (a node listed twice is \
        rotating: both keys are admitted).
        """) var nodeKeys: String?
    @Option(help: "A file of admin public keys, one per line.") var adminKeys: String?
    @Option(help: """
        The cluster's coordinators (HA), a file of `name public-key command-endpoint event-endpoint` lines: \
        each has a key pair of its own, and their keys are admitted (a standby's SUB to the leader presents its own).
        """) var coordinatorKeys: String?

    func security() throws -> CoordinatorSecurity? {
        guard let secretKey else {
            if nodeKeys != nil || adminKeys != nil || coordinatorKeys != nil {
                throw ValidationError("--node-keys/--admin-keys/--coordinator-keys need --secret-key")
            }
            return nil
        }
        var nodes: [String: String] = [:]
        var retiring: [String: String] = [:]
        if let nodeKeys {
            let text = try String(contentsOfFile: nodeKeys, encoding: .utf8)
            for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.isEmpty || parts[0].hasPrefix("#") { continue }
                guard parts.count == 2, CurveKeyPair.isValidZ85Key(String(parts[1])) else {
                    throw ValidationError("\(nodeKeys):\(number + 1): expected `node-id public-key`")
                }
                // A node listed twice rotates its key: the earlier line's stays admitted until removed.
                let node = String(parts[0])
                if let earlier = nodes[node] {
                    guard retiring[node] == nil else { throw ValidationError("\(nodeKeys):\(number + 1): node '\(node)' is listed more than twice") }
                    retiring[node] = earlier
                }
                nodes[node] = String(parts[1])
            }
        }
        var admins = Set<String>()
        if let adminKeys {
            let text = try String(contentsOfFile: adminKeys, encoding: .utf8)
            for line in text.split(whereSeparator: \.isNewline) {
                let key = line.trimmingCharacters(in: .whitespaces)
                if key.isEmpty || key.hasPrefix("#") { continue }
                guard CurveKeyPair.isValidZ85Key(key) else { throw ValidationError("\(adminKeys): '\(key.prefix(8))…' is not a Z85 key") }
                admins.insert(key)
            }
        }
        let secret = try readKey(secretKey, what: "coordinator secret")
        let coordinators = try coordinatorKeys.map(readTrustedCoordinators)
        if let coordinators, let coordinatorKeys, !coordinators.trusts(try CurveKeyPair(secretKey: secret).publicKey) {
            throw ValidationError("\(coordinatorKeys) does not list this coordinator's public key (\(secretKey)): nodes would not believe it")
        }
        var security = CoordinatorSecurity(secretKey: secret, nodeKeys: nodes, adminKeys: admins, coordinators: coordinators)
        security.retiringNodeKeys = retiring
        return security
    }
}

struct NodeKeyOptions: ParsableArguments {
    @Option(help: "This node's secret key file: turns CURVE on.") var secretKey: String?
    @Option(help: "The coordinator's public key file (one key every coordinator serves with).") var coordinatorKey: String?
    @Option(help: """
        The coordinators this node believes, a file of `name public-key command-endpoint event-endpoint` lines \
        (a key pair per coordinator): it connects to each with its key, and ignores any other.
        """) var coordinatorKeys: String?

    func security() throws -> NodeSecurity? {
        guard let secretKey else {
            if coordinatorKey != nil || coordinatorKeys != nil { throw ValidationError("--coordinator-key(s) needs --secret-key") }
            return nil
        }
        let secret = try readKey(secretKey, what: "node secret")
        let pair = try CurveKeyPair(secretKey: secret)
        switch (coordinatorKey, coordinatorKeys) {
        case (let file?, nil):
            return NodeSecurity(publicKey: pair.publicKey, secretKey: secret, coordinatorPublicKey: try readKey(file, what: "coordinator public"))
        case (nil, let file?):
            return NodeSecurity(publicKey: pair.publicKey, secretKey: secret, coordinators: try readTrustedCoordinators(file))
        case (nil, nil):
            throw ValidationError("--secret-key needs --coordinator-keys (or --coordinator-key)")
        case (_?, _?):
            throw ValidationError("give --coordinator-keys or --coordinator-key, not both")
        }
    }
}
