import ArgumentParser
import Foundation
import ZeroMQ

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a CURVE key pair (Z85) to PREFIX.key (secret, mode 0600) and PREFIX.pub.",
        discussion: "Example: camsync keygen /etc/camsync/keys/ipad-1")

    @Argument(help: "Path prefix of the two files.") var prefix: String
    @Flag(help: "Overwrite existing files.") var force = false

    func run() throws {
        let secretPath = prefix + ".key", publicPath = prefix + ".pub"
        let manager = FileManager.default
        if !force, manager.fileExists(atPath: secretPath) || manager.fileExists(atPath: publicPath) {
            throw ValidationError("\(secretPath) or \(publicPath) exists; pass --force to replace it")
        }
        let pair = try CurveKeyPair.generate()
        let directory = (prefix as NSString).deletingLastPathComponent
        if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        guard manager.createFile(atPath: secretPath, contents: Data((pair.secretKey + "\n").utf8),
                                 attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write \(secretPath)")
        }
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretPath)
        try (pair.publicKey + "\n").write(toFile: publicPath, atomically: true, encoding: .utf8)
        print("wrote \(secretPath) (secret, 0600) and \(publicPath) (public)")
    }
}
