import CamsyncWire
import Testing

/// `coordinators.txt`: the coordinators nodes and clients believe, each with its own key.
@Suite struct TrustedCoordinatorsTests {
    static func key(_ c: Character) -> String { String(repeating: c, count: 40) }
    static func isKey(_ text: String) -> Bool { text.count == 40 }

    static let file = """
        # name public-key command-endpoint event-endpoint
        c1 \(key("a")) tcp://10.0.0.11:5555 tcp://10.0.0.11:5556

        c2\t\(key("b"))   tcp://10.0.0.12:5555 tcp://10.0.0.12:5556
        """

    @Test("the file parses into entries, and its text parses back to the same")
    func parsesAndRoundTrips() throws {
        let trusted = try TrustedCoordinators(parsing: Self.file, file: "coordinators.txt", isValidKey: Self.isKey)
        #expect(trusted.entries.map(\.name) == ["c1", "c2"])
        #expect(trusted.key(forCommandEndpoint: "tcp://10.0.0.12:5555") == Self.key("b"))
        #expect(trusted.key(forEventEndpoint: "tcp://10.0.0.11:5556") == Self.key("a"))
        #expect(trusted.key(forCommandEndpoint: "tcp://10.0.0.13:5555") == nil)
        #expect(trusted.name(of: Self.key("b")) == "c2")
        #expect(try TrustedCoordinators(parsing: trusted.fileText, file: "x", isValidKey: Self.isKey) == trusted)
    }

    @Test("a bad file is refused with its line and what is wrong", arguments: [
        ("c1 \(key("a")) tcp://a:1", 1, "expected `name public-key command-endpoint event-endpoint`"),
        ("# ok\nc1 short tcp://a:1 tcp://a:2", 2, "'short…' is not a 40-character Z85 public key"),
        ("c1 \(key("a")) tcp://a:1 tcp://a:2\nc1 \(key("b")) tcp://b:1 tcp://b:2", 2, "coordinator 'c1' is listed twice"),
        ("# nothing\n", 0, "lists no coordinator"),
    ])
    func refusesBadFiles(text: String, line: Int, message: String) {
        #expect(throws: TrustedCoordinators.FileError(file: "k.txt", line: line, message: message)) {
            try TrustedCoordinators(parsing: text, file: "k.txt", isValidKey: Self.isKey)
        }
    }

    @Test("an address is believed by its key, or without one by its listed endpoint", arguments: [
        (key("a"), "tcp://elsewhere:1", key("a") as String?),
        (key("z"), "tcp://10.0.0.11:5555", nil),
        ("", "tcp://10.0.0.12:5555", key("b")),
        ("", "tcp://elsewhere:1", nil),
    ])
    func addressTrust(publicKey: String, endpoint: String, expected: String?) throws {
        let trusted = try TrustedCoordinators(parsing: Self.file, file: "k", isValidKey: Self.isKey)
        var address = Camsync_V1_CoordinatorAddress()
        address.commandEndpoint = endpoint
        address.publicKey = publicKey
        #expect(trusted.key(for: address) == expected)
        #expect(TrustedCoordinators.shared(Self.key("a")).key(for: address) == (publicKey.isEmpty || publicKey == Self.key("a") ? Self.key("a") : nil))
    }
}
