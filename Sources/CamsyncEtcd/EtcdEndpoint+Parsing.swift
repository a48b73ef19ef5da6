public import CamsyncEtcdModel

/// Endpoints as written on the command line and in topologies, and how the client connects to one.
extension EtcdEndpoint {
    /// Parses `host:port`, `https://host:port` or `http://host:port`; throws `.rejected` on anything else.
    public init(parsing text: String) throws {
        var rest = Substring(text)
        for scheme in ["https://", "http://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
              (1...65535).contains(port), colon != rest.startIndex else {
            throw EtcdError(.rejected, "bad etcd endpoint '\(text)': expected host:port or https://host:port")
        }
        self.init(host: String(rest[..<colon]), port: port)
    }

    /// Parses a comma-separated list (`--etcd 127.0.0.1:2379,127.0.0.1:2381`).
    public static func list(parsing text: String) throws -> [EtcdEndpoint] {
        let endpoints = try text.split(separator: ",").map { try EtcdEndpoint(parsing: String($0)) }
        guard !endpoints.isEmpty else { throw EtcdError(.rejected, "no etcd endpoints in '\(text)'") }
        return endpoints
    }

    /// True for a dotted IPv4 literal (connected to as is); anything else is a host name, resolved by DNS.
    var isIPv4: Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
