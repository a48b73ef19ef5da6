import CamsyncCoordinator
import CamsyncRuntime
import Foundation
import ZeroMQ

/// The keys of a fleet benchmark run in the deployed configuration (CURVE on every connection): the
/// coordinator's pair, an admin pair for the bench's own DEALER (it sends each device's commands), and
/// each node's pair, derived from its id and the run's `salt`. A benchmark's keys, not secrets: the
/// shard processes derive their nodes' keys themselves instead of being sent thousands of them, and
/// the coordinator admits exactly those (its node-keys file binds each id to its key, as deployed).
struct FleetKeys: Sendable {
    let salt: UInt64
    let coordinator: CurveKeyPair
    let admin: CurveKeyPair

    init(salt: UInt64 = UInt64.random(in: 1...UInt64.max)) throws {
        self.salt = salt
        coordinator = try CurveKeyPair.generate()
        admin = try CurveKeyPair.generate()
    }

    /// Node `id`'s key pair in a run of `salt`: 32 bytes of a SplitMix64 stream seeded by the id's
    /// FNV-1a hash and the salt.
    static func node(_ id: String, salt: UInt64) throws -> CurveKeyPair {
        var stream = SplitMix64(seed: FNV1a.hash(id) ^ salt)
        let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: stream.next().littleEndian, Array.init) }
        return try CurveKeyPair(secretBytes: bytes)
    }

    /// Writes the coordinator's key files into `directory`, admitting `nodes` and the bench's admin key.
    func writeCoordinatorFiles(directory: String, nodes: [String]) throws -> CoordinatorLaunch.KeyFiles {
        let files = CoordinatorLaunch.KeyFiles(secretKey: "\(directory)/coordinator.key", nodeKeys: "\(directory)/node-keys.txt",
                                               adminKeys: "\(directory)/admin-keys.txt")
        try (coordinator.secretKey + "\n").write(toFile: files.secretKey, atomically: true, encoding: .utf8)
        try nodes.map { "\($0) \(try Self.node($0, salt: salt).publicKey)\n" }.joined()
            .write(toFile: files.nodeKeys, atomically: true, encoding: .utf8)
        try (admin.publicKey + "\n").write(toFile: files.adminKeys, atomically: true, encoding: .utf8)
        return files
    }
}
