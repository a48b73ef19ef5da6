/// The coordinators a node or a client believes (a CURVE key pair per coordinator), and
/// the server key to connect to each with. Pure: the file is parsed from its text, and keys are
/// compared as Z85 text; the sockets only carry the keys this value hands out.
///
/// A coordinator is believed when its public key is listed. An address a heartbeat or a NOT_LEADER
/// names (`Camsync_V1_CoordinatorAddress`) is believed when the key it carries is listed, or, when it
/// carries none (a coordinator older than the field), when a key is listed for its command endpoint.
/// CURVE then proves the server at that endpoint holds the key's secret: an address naming a listed
/// key at another endpoint cannot be served by anyone but that coordinator.
///
/// The file (`coordinators.txt`, written by `camsync keygen --coordinators` and `cluster up`): one
/// `NAME PUBLIC-KEY COMMAND-ENDPOINT EVENT-ENDPOINT` line per coordinator; `#` starts a comment.
public struct TrustedCoordinators: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var publicKey: String
        /// Where nodes reach its ROUTER and PUB (the endpoints it advertises).
        public var commandEndpoint: String
        public var eventEndpoint: String

        public init(name: String, publicKey: String, commandEndpoint: String, eventEndpoint: String) {
            self.name = name
            self.publicKey = publicKey
            self.commandEndpoint = commandEndpoint
            self.eventEndpoint = eventEndpoint
        }
    }

    public var entries: [Entry]
    /// One key that every coordinator serves with (`--coordinator-key`: an embedded coordinator, or
    /// coordinators that still share one pair): trusted, and the key at every endpoint no entry lists.
    public var sharedKey: String?

    public init(entries: [Entry]) {
        self.entries = entries
        sharedKey = nil
    }

    /// Every coordinator serves with `key`.
    public static func shared(_ key: String) -> TrustedCoordinators {
        var trusted = TrustedCoordinators(entries: [])
        trusted.sharedKey = key
        return trusted
    }

    /// Every key believed.
    public var publicKeys: Set<String> { Set(entries.map(\.publicKey) + [sharedKey].compactMap { $0 }) }

    public func trusts(_ publicKey: String) -> Bool { !publicKey.isEmpty && publicKeys.contains(publicKey) }

    /// The server key for a command endpoint of the node's list; nil when no listed coordinator is there.
    public func key(forCommandEndpoint endpoint: String) -> String? {
        entries.first { $0.commandEndpoint == endpoint }?.publicKey ?? sharedKey
    }

    /// The server key for an event endpoint of the node's list; nil when no listed coordinator is there.
    public func key(forEventEndpoint endpoint: String) -> String? {
        entries.first { $0.eventEndpoint == endpoint }?.publicKey ?? sharedKey
    }

    /// The server key to reach the coordinator `address` names, if it is believed; nil if not (its key
    /// is not listed, or it carries none and no listed coordinator is at its command endpoint).
    public func key(for address: Camsync_V1_CoordinatorAddress) -> String? {
        if !address.publicKey.isEmpty { return trusts(address.publicKey) ? address.publicKey : nil }
        return key(forCommandEndpoint: address.commandEndpoint)
    }

    /// The name listed for a key ("" if none).
    public func name(of publicKey: String) -> String { entries.first { $0.publicKey == publicKey }?.name ?? "" }

    // MARK: The file

    public struct FileError: Error, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String
        public var description: String { "\(file):\(line): \(message)" }
        public init(file: String, line: Int, message: String) {
            self.file = file
            self.line = line
            self.message = message
        }
    }

    /// Parses a `coordinators.txt`. `isValidKey` checks a public key's text (`CurveKeyPair.isValidZ85Key`).
    public init(parsing text: String, file: String, isValidKey: (String) -> Bool) throws(FileError) {
        var entries: [Entry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if words.isEmpty || words[0].hasPrefix("#") { continue }
            func fail(_ message: String) -> FileError { FileError(file: file, line: index + 1, message: message) }
            guard words.count == 4 else { throw fail("expected `name public-key command-endpoint event-endpoint`") }
            guard isValidKey(words[1]) else { throw fail("'\(words[1].prefix(8))…' is not a 40-character Z85 public key") }
            guard !entries.contains(where: { $0.name == words[0] }) else { throw fail("coordinator '\(words[0])' is listed twice") }
            entries.append(Entry(name: words[0], publicKey: words[1], commandEndpoint: words[2], eventEndpoint: words[3]))
        }
        guard !entries.isEmpty else { throw FileError(file: file, line: 0, message: "lists no coordinator") }
        self.init(entries: entries)
    }

    /// The file's text for these entries.
    public var fileText: String {
        "# name public-key command-endpoint event-endpoint: the coordinators nodes and clients believe\n"
            + entries.map { "\($0.name) \($0.publicKey) \($0.commandEndpoint) \($0.eventEndpoint)\n" }.joined()
    }
}
