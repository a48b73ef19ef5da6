import CamsyncCoordinator
import CamsyncWire
import CamsyncEtcd
import CamsyncPolicy
import Foundation
import Testing
import ZeroMQ
@testable import camsync
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// One encoder of coordinator settings into a command line (`CoordinatorLaunch`), and
/// `camsync coordinator` parsing it back into exactly those settings.
@Suite struct CoordinatorLaunchTests {
    static let embedded = CoordinatorSettings(
        commandEndpoint: "tcp://0.0.0.0:5555,ipc:///tmp/c.sock", eventEndpoint: "tcp://0.0.0.0:5556", dataDirectory: "/var/lib/camsync",
        durability: .normal, heartbeatIntervalMilliseconds: 250, liveness: 4, snapshotEvery: 500, commitsInFlight: 3,
        policy: PolicySettings(stageWindowLimitPerScreen: 3, backgroundMediaMemoryLimitMB: 150, pipRestoreDeadlineMilliseconds: 900))

    static var highAvailability: CoordinatorSettings {
        var settings = CoordinatorSettings.defaults
        settings.commandEndpoint = "tcp://0.0.0.0:25755"
        settings.highAvailability = HighAvailabilitySettings(
            etcd: [EtcdEndpoint(host: "10.0.0.1", port: 2379), EtcdEndpoint(host: "etcd-2.lab", port: 2381)], name: "c2",
            prefix: "/site-a", leaseSeconds: 3, advertisedCommandEndpoint: "tcp://10.0.0.12:25755")
        return settings
    }

    /// HA over mutual TLS (the default a topology gets).
    static var highAvailabilityTLS: CoordinatorSettings {
        var settings = highAvailability
        settings.highAvailability?.etcdTLS = EtcdClientTLS(trustedCA: "/etc/camsync/tls/ca.crt", certificate: "/etc/camsync/tls/c2.crt",
                                                           privateKey: "/etc/camsync/tls/c2.key")
        return settings
    }

    @Test("the arguments parse back into the same settings",
          arguments: [embedded, highAvailability, highAvailabilityTLS, CoordinatorSettings.defaults])
    func roundTrip(_ settings: CoordinatorSettings) throws {
        var settings = settings
        if settings.highAvailability == nil, settings.dataDirectory.isEmpty { settings.dataDirectory = "/tmp/camsync-data" }
        let arguments = CoordinatorLaunch(settings: settings, http: ":9100", logLevel: "warning").arguments
        #expect(arguments.first == "coordinator")
        let command = try CoordinatorCommand.parse(Array(arguments.dropFirst()))
        #expect(try command.settings() == settings)
        #expect(command.http.address == ":9100")
        #expect(command.global.logLevel == .warning)
    }

    @Test("HA needs mutual TLS to etcd or an explicit --etcd-plaintext, never a mix", arguments: [
        ([], false),
        (["--etcd-plaintext"], true),
        (["--etcd-ca", "ca.crt", "--etcd-cert", "c1.crt", "--etcd-key", "c1.key"], true),
        (["--etcd-ca", "ca.crt", "--etcd-cert", "c1.crt"], false),
        (["--etcd-plaintext", "--etcd-ca", "ca.crt", "--etcd-cert", "c1.crt", "--etcd-key", "c1.key"], false),
    ])
    func etcdSecurityFlags(_ flags: [String], accepted: Bool) {
        let arguments = ["--etcd", "127.0.0.1:2379", "--name", "c1"] + flags
        #expect(((try? CoordinatorCommand.parse(arguments)) != nil) == accepted, "\(arguments)")
    }

    @Test("key files become the key flags, and the keys they hold the settings' security")
    func keyFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-launch-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let coordinator = try CurveKeyPair.generate(), node = try CurveKeyPair.generate(), admin = try CurveKeyPair.generate()
        try coordinator.secretKey.write(toFile: "\(directory)/coordinator.key", atomically: true, encoding: .utf8)
        try "ipad-1 \(node.publicKey)\n".write(toFile: "\(directory)/nodes.txt", atomically: true, encoding: .utf8)
        try "\(admin.publicKey)\n".write(toFile: "\(directory)/admin.pub", atomically: true, encoding: .utf8)
        var settings = Self.embedded
        settings.security = CoordinatorSecurity(secretKey: coordinator.secretKey, nodeKeys: ["ipad-1": node.publicKey],
                                                adminKeys: [admin.publicKey])
        let launch = CoordinatorLaunch(settings: settings, keyFiles: .init(secretKey: "\(directory)/coordinator.key",
                                                                           nodeKeys: "\(directory)/nodes.txt",
                                                                           adminKeys: "\(directory)/admin.pub"))
        let command = try CoordinatorCommand.parse(Array(launch.arguments.dropFirst()))
        #expect(try command.settings() == settings)
    }

    @Test("--coordinator-keys: every coordinator's key; a node listed twice is rotating (both admitted); this coordinator must be listed")
    func coordinatorKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camsync-launch-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let c1 = try CurveKeyPair.generate(), c2 = try CurveKeyPair.generate()
        let oldNode = try CurveKeyPair.generate(), newNode = try CurveKeyPair.generate()
        try c1.secretKey.write(toFile: "\(directory)/c1.key", atomically: true, encoding: .utf8)
        try "ipad-1 \(oldNode.publicKey)\nipad-1 \(newNode.publicKey)\n".write(toFile: "\(directory)/nodes.txt", atomically: true, encoding: .utf8)
        try "".write(toFile: "\(directory)/admin.pub", atomically: true, encoding: .utf8)
        let trusted = TrustedCoordinators(entries: [
            .init(name: "c1", publicKey: c1.publicKey, commandEndpoint: "tcp://a:1", eventEndpoint: "tcp://a:2"),
            .init(name: "c2", publicKey: c2.publicKey, commandEndpoint: "tcp://b:1", eventEndpoint: "tcp://b:2"),
        ])
        try trusted.fileText.write(toFile: "\(directory)/coordinators.txt", atomically: true, encoding: .utf8)
        let files = CoordinatorLaunch.KeyFiles(secretKey: "\(directory)/c1.key", nodeKeys: "\(directory)/nodes.txt",
                                               adminKeys: "\(directory)/admin.pub", coordinatorKeys: "\(directory)/coordinators.txt")
        let launch = CoordinatorLaunch(settings: Self.embedded, keyFiles: files)
        #expect(launch.arguments.suffix(2) == ["--coordinator-keys", "\(directory)/coordinators.txt"])
        let security = try #require(try CoordinatorCommand.parse(Array(launch.arguments.dropFirst())).settings().security)
        #expect(security.coordinators == trusted)
        #expect(security.nodeKeys == ["ipad-1": newNode.publicKey] && security.retiringNodeKeys == ["ipad-1": oldNode.publicKey])
        #expect(security.node(forKey: oldNode.publicKey) == "ipad-1" && security.node(forKey: newNode.publicKey) == "ipad-1")
        #expect(security.admittedNodeKeys == [oldNode.publicKey, newNode.publicKey])
        // c2's secret with this list: refused at start, nodes would not believe it.
        try c2.secretKey.write(toFile: "\(directory)/c1.key", atomically: true, encoding: .utf8)
        try TrustedCoordinators(entries: [trusted.entries[0]]).fileText.write(toFile: "\(directory)/coordinators.txt", atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try CoordinatorCommand.parse(Array(launch.arguments.dropFirst())).settings() }
    }
}
