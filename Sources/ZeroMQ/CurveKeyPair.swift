import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A long-term CURVE key pair, both keys as 40-character Z85 text.
///
/// The secret key never appears in `description`, `debugDescription`, `dump` or `Mirror`
/// output: keys must never reach logs.
public struct CurveKeyPair: Sendable, Hashable {
    public let publicKey: String
    public let secretKey: String

    /// A new random key pair (libsodium via `zmq_curve_keypair`).
    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        defer { secretKey.withUnsafeMutableBufferPointer { wipe($0) } }
        if zmq_curve_keypair(&publicKey, &secretKey) != 0 {
            throw ZMQError.last("zmq_curve_keypair")
        }
        return CurveKeyPair(publicKey: string(publicKey), secretKey: string(secretKey))
    }

    /// The key pair for `secretKey`, deriving the public key (`zmq_curve_public`).
    /// - Throws: `ZMQError` (EINVAL) when `secretKey` is not 40 characters of Z85.
    public init(secretKey: String) throws {
        guard Self.isValidZ85Key(secretKey) else {
            throw ZMQError.invalidArgument("zmq_curve_public (a secret key must be 40 characters of Z85)")
        }
        var publicKey = [CChar](repeating: 0, count: 41)
        if zmq_curve_public(&publicKey, secretKey) != 0 {
            throw ZMQError.last("zmq_curve_public")
        }
        self.publicKey = Self.string(publicKey)
        self.secretKey = secretKey
    }

    /// The key pair whose secret key is these 32 bytes (a benchmark's keys, derived from a node's
    /// name; a real key comes from `generate()`).
    public init(secretBytes: [UInt8]) throws {
        guard let secretKey = Self.z85(encoding: secretBytes) else {
            throw ZMQError.invalidArgument("a CURVE secret key is 32 bytes (\(secretBytes.count) given)")
        }
        try self.init(secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The public key derived from a Z85 secret key.
    public static func publicKey(forSecretKey secretKey: String) throws -> String {
        try CurveKeyPair(secretKey: secretKey).publicKey
    }

    /// Whether `key` is 40 characters of the Z85 alphabet (32 bytes encoded).
    public static func isValidZ85Key(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        return bytes.count == 40 && bytes.allSatisfy { z85Alphabet.contains($0) }
    }

    /// Encodes 32 raw key bytes (e.g. a ZAP request's CURVE credentials) as Z85.
    static func z85(encoding bytes: [UInt8]) -> String? {
        guard bytes.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let ok = bytes.withUnsafeBufferPointer { zmq_z85_encode(&text, $0.baseAddress, 32) != nil }
        return ok ? string(text) : nil
    }

    private static let z85Alphabet: Set<UInt8> = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func wipe(_ buffer: UnsafeMutableBufferPointer<CChar>) {
        for i in buffer.indices { buffer[i] = 0 }
    }
}

extension CurveKeyPair: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "CurveKeyPair(publicKey: \(publicKey), secretKey: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["publicKey": publicKey, "secretKey": "<redacted>"], displayStyle: .struct)
    }
}
