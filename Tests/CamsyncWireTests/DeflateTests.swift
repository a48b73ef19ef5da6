import CamsyncWire
import Testing

/// `Deflate`: zlib's format through the system zlib (the HA command log's turns, `LogTurn`).
@Suite struct DeflateTests {
    /// Bytes that do not compress: a fixed xorshift sequence.
    static func noise(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static let inputs: [(String, [UInt8])] = [
        ("empty", []),
        ("one byte", [0x0A]),
        ("a repeated name, 1 MiB", Array(String(repeating: "ipad-17/com.example.camera ", count: 40_000).utf8.prefix(1 << 20))),
        ("noise, 100 kB", noise(100_000)),
    ]

    @Test("compressing and inflating gives the bytes back", arguments: inputs)
    func roundTrip(name: String, bytes: [UInt8]) throws {
        let compressed = Deflate.compress(bytes)
        #expect(compressed.first == 0x78, "zlib's header for deflate with a 32 KiB window")
        #expect(try Deflate.decompress(compressed[...], limit: bytes.count) == bytes)
    }

    @Test func repeatedNamesShrink() {
        let bytes = Array(String(repeating: "ipad-17/com.example.camera ", count: 4_000).utf8)
        #expect(Deflate.compress(bytes).count * 20 < bytes.count)
    }

    static let damaged: [(String, [UInt8], String)] = {
        let good = Deflate.compress(Array(String(repeating: "ipad-17/com.example.camera ", count: 100).utf8))
        var flipped = good
        flipped[good.count / 2] ^= 0xFF
        return [
            ("cut short", Array(good.dropLast(6)), "ends early"),
            ("bytes after the end", good + [0], "after the end"),
            ("a damaged byte", flipped, "zlib"),
            ("not zlib at all", [0x0A, 0x03, 1, 2, 3], "zlib"),
            ("nothing", [], "ends early"),
        ]
    }()

    @Test("a damaged stream is an error that says what is wrong", arguments: damaged)
    func damagedStream(name: String, bytes: [UInt8], says: String) {
        #expect {
            try Deflate.decompress(bytes[...], limit: 1 << 20)
        } throws: { error in
            (error as? DeflateError)?.description.contains(says) == true
        }
    }

    @Test func moreThanTheLimitIsRefused() throws {
        let bytes = [UInt8](repeating: 7, count: 10_000)
        let compressed = Deflate.compress(bytes)
        #expect(try Deflate.decompress(compressed[...], limit: 10_000) == bytes)
        #expect {
            try Deflate.decompress(compressed[...], limit: 9_999)
        } throws: { error in
            (error as? DeflateError)?.description.contains("more than 9999 bytes") == true
        }
    }
}
