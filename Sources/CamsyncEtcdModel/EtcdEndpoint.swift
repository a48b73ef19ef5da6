/// One etcd member's client URL: `host:port`, written `127.0.0.1:2379`, `https://127.0.0.1:2379` or
/// `http://…`. An IPv4 address or a host name (resolved by DNS). Whether the client speaks TLS is
/// the client's setting (`EtcdClient.Settings.tls`), not the URL's scheme.
public struct EtcdEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
