import ArgumentParser
import CamsyncCoordinator
import CamsyncNode
import Foundation
import ZeroMQ

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

struct CoordinatorKeyOptions: ParsableArguments {
    @Option(help: "The coordinator's secret key file: turns CURVE on for both sockets.") var secretKey: String?
    @Option(help: "A file of `node-id public-key` lines: the nodes admitted, each bound to its key.") var nodeKeys: String?
    @Option(help: "A file of admin public keys, one per line.") var adminKeys: String?

    func security() throws -> CoordinatorSecurity? {
        guard let secretKey else {
            if nodeKeys != nil || adminKeys != nil { throw ValidationError("--node-keys/--admin-keys need --secret-key") }
            return nil
        }
        var nodes: [String: String] = [:]
        if let nodeKeys {
            let text = try String(contentsOfFile: nodeKeys, encoding: .utf8)
            for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.isEmpty || parts[0].hasPrefix("#") { continue }
                guard parts.count == 2, CurveKeyPair.isValidZ85Key(String(parts[1])) else {
                    throw ValidationError("\(nodeKeys):\(number + 1): expected `node-id public-key`")
                }
                nodes[String(parts[0])] = String(parts[1])
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
        return CoordinatorSecurity(secretKey: try readKey(secretKey, what: "coordinator secret"), nodeKeys: nodes, adminKeys: admins)
    }
}

struct NodeKeyOptions: ParsableArguments {
    @Option(help: "This node's secret key file: turns CURVE on.") var secretKey: String?
    @Option(help: "The coordinator's public key file.") var coordinatorKey: String?

    func security() throws -> NodeSecurity? {
        guard let secretKey else { return nil }
        guard let coordinatorKey else { throw ValidationError("--secret-key needs --coordinator-key") }
        let secret = try readKey(secretKey, what: "node secret")
        let pair = try CurveKeyPair(secretKey: secret)
        return NodeSecurity(publicKey: pair.publicKey, secretKey: secret,
                            coordinatorPublicKey: try readKey(coordinatorKey, what: "coordinator public"))
    }
}
