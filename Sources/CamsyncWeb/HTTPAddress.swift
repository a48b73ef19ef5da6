/// Where a daemon's read-only HTTP server listens (`--http HOST:PORT`; port 0 picks a free one).
public struct HTTPAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, `:PORT` (loopback) or `PORT` (loopback). IPv6 hosts in brackets: `[::1]:9090`.
    public init(parsing text: String) throws(HTTPAddressError) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            let hostPart = text[..<colon]
            portText = text[text.index(after: colon)...]
            if !hostPart.isEmpty {
                host = hostPart.hasPrefix("[") && hostPart.hasSuffix("]") ? String(hostPart.dropFirst().dropLast()) : String(hostPart)
            }
        }
        guard let port = Int(portText), (0...65_535).contains(port), !host.isEmpty else {
            throw HTTPAddressError(text: text)
        }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public struct HTTPAddressError: Error, CustomStringConvertible {
    public var text: String
    public var description: String { "'\(text)' is not an HTTP address: expected HOST:PORT, :PORT or PORT (0–65535)" }
}
