import CamsyncTopology
import CamsyncWorkload
import CamsyncConfig
import CamsyncPolicy

/// The simulated cluster's nodes: the soak's three iPads and three displays (so the soak's workload
/// and checks apply unchanged), then more iPads like the third.
enum SimTopology {
    static func nodeConfigs(count: Int) throws -> [NodeConfig] {
        let yaml = SoakTopology.yaml(commands: "sim://c1/commands", events: "sim://c1/events", heartbeatMs: 200, liveness: 3)
        let topology = try Topology(yaml: yaml)
        var configs = try topology.nodes.map { try NodeConfig(file: $0.config) }
        let template = configs.first { $0.id == NodeID(SoakTopology.devices[2]) } ?? configs[0]
        var next = SoakTopology.devices.count + 1
        while configs.count < count {
            var registration = template.registration
            registration.node = NodeID("ipad-\(next)")
            configs.append(NodeConfig(registration: registration))
            next += 1
        }
        return configs
    }

    /// A control client and its node share a host: a request or an answer takes this long (µs).
    static let controlDelay: Int64 = 200

    static func commandEndpoint(_ coordinator: Int) -> String { "sim://c\(coordinator + 1)/commands" }
    static func eventEndpoint(_ coordinator: Int) -> String { "sim://c\(coordinator + 1)/events" }

    /// The coordinator an endpoint names.
    static func coordinator(endpoint: String) -> Int? {
        guard endpoint.hasPrefix("sim://c"), let slash = endpoint.dropFirst(7).firstIndex(of: "/"),
              let number = Int(endpoint[endpoint.index(endpoint.startIndex, offsetBy: 7)..<slash]) else { return nil }
        return number - 1
    }
}
