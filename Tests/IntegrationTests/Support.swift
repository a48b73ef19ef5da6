import CamsyncProcessLab
import CamsyncClient
import CamsyncPolicy
import CamsyncWire
import CamsyncTestSupport
import Testing

/// Shorthands for the apps of the test topology.
enum Apps {
    static let camera1 = AppID(device: "ipad-1", bundleID: "com.apple.camera")
    static let call1 = AppID(device: "ipad-1", bundleID: "com.example.videocall")
    static let recorder1 = AppID(device: "ipad-1", bundleID: "com.example.recorder")
    static let notes1 = AppID(device: "ipad-1", bundleID: "com.example.notes")
    static let scanner1 = AppID(device: "ipad-1", bundleID: "com.example.scanner")
    static let call2 = AppID(device: "ipad-2", bundleID: "com.example.videocall")
    static let notes2 = AppID(device: "ipad-2", bundleID: "com.example.notes")
    static let front1 = CameraID(host: "ipad-1", name: "front")
    static let front2 = CameraID(host: "ipad-2", name: "front")
    static let displayCamera = CameraID(host: "display-1", name: "center-stage")
    static let builtIn1 = CameraSystemID.builtIn(device: "ipad-1")
}

extension LocalCluster {
    /// Sends actions through one node's control socket (the real path), failing on a refusal.
    func act(_ node: String, _ commands: [Command]) throws {
        let control = try controlClient(node)
        defer { control.close() }
        for command in commands { try control.act(command) }
    }

    /// The app-facing events a node logged for one app, as `name` or `name(reason raw)` strings.
    func appEvents(_ node: String, _ app: AppID) throws -> [String] {
        try status(node).appEvents.filter { $0.app.bundleID == app.bundleID && $0.app.device == app.device.rawValue }
            .map { event in
                if let raw = event.details.first(where: { $0.key == "raw" }) { return "\(event.name)(\(raw.value))" }
                return event.name
            }
    }

    /// Waits until every running node's replica equals the coordinator's state at the same sequence.
    func waitForAgreement(timeout: Double = 10) throws {
        try waitUntil(timeout: timeout, what: "every replica to equal the coordinator's state") {
            let (coordinator, nodes) = try replicas()
            for status in nodes.values {
                guard status.caughtUp(with: coordinator) else { return false }
                guard try status.replicaAgrees(with: coordinator.state) else { return false }
            }
            return true
        }
    }
}

/// The integration suites that start etcd clusters run one at a time (each starts 3 members, and
/// several at once on 2 cores made etcd time out), in one cluster slot held from the first to the
/// last, taken ahead of the other suites: this chain is the longest of the run. The etcd client's
/// own tests are `LiveEtcdTests`.
@Suite(.serialized, .clusterSlot(ahead: true)) struct EtcdBackedTests {}
