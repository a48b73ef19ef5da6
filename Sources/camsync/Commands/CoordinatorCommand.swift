import ArgumentParser
import CamsyncClient
import CamsyncCoordinator
import CamsyncEtcd
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import Foundation
import Logging
import ServiceLifecycle
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Run the coordinator: the single writer of cluster state.",
        discussion: """
            Binds a ROUTER for commands and a PUB for events, journals every accepted command in \
            DATA-DIR/journal.sqlite before acknowledging it, and declares silent nodes dead.

            Example:
              camsync coordinator --data-dir /var/lib/camsync \\
                --commands tcp://0.0.0.0:5555 --events tcp://0.0.0.0:5556

            HA mode (SPEC K6): with --etcd, several coordinators share one etcd cluster; one leads \
            (elected through etcd), the others are standbys that follow the log on etcd and answer \
            NOT_LEADER naming the leader. No journal is kept locally (no --data-dir).

            Example:
              camsync coordinator --name c1 \\
                --etcd http://10.0.0.1:2379,http://10.0.0.2:2379,http://10.0.0.3:2379 \\
                --commands tcp://0.0.0.0:5555 --events tcp://0.0.0.0:5556 \\
                --advertise-commands tcp://10.0.0.11:5555 \\
                --advertise-events tcp://10.0.0.11:5556
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "Directory of the journal (created if missing). Not with --etcd.") var dataDir: String?
    @Option(help: "HA mode: etcd client URLs, comma-separated (the log and the leadership live there).")
    var etcd: String?
    @Option(help: "HA mode: this coordinator's name, unique in the cluster.") var name: String?
    @Option(help: "HA mode: key prefix on etcd (one per camsync cluster).") var etcdPrefix = Self.defaultHA.prefix
    @Option(help: "HA mode: etcd lease TTL in seconds (a dead leader is replaced after about this long).")
    var leaseSeconds: Int64 = Self.defaultHA.leaseSeconds
    @Option(help: "HA mode: how long one etcd request may take before it counts as failed, in milliseconds.")
    var etcdRequestTimeoutMs: Int64 = Self.defaultHA.requestTimeoutMilliseconds
    @Option(help: "HA mode: how often the leader publishes its pulse to the standbys, in milliseconds.")
    var leaderPulseMs: Int64 = Self.defaultHA.pulseMilliseconds
    @Option(help: "HA mode: a standby that stops hearing the leader's pulse for this long revokes its lease and campaigns (0: wait for the lease to expire).")
    var suspectLeaderAfterMs: Int64 = Self.defaultHA.suspicionMilliseconds
    @Option(help: "HA mode: the command endpoint nodes should use (default: the bound one).") var advertiseCommands = ""
    @Option(help: "HA mode: the event endpoint nodes should use (default: the bound one).") var advertiseEvents = ""
    @Option(help: "ROUTER endpoint for commands and snapshots.") var commands = Self.defaults.commandEndpoint
    @Option(help: "PUB endpoint for events and heartbeats.") var events = Self.defaults.eventEndpoint
    @Option(help: "Journal durability: full, normal or off.") var durability = Self.defaults.durability.rawValue
    @Option(help: "Heartbeat interval in milliseconds (K1).") var heartbeatMs = Self.defaults.heartbeatIntervalMilliseconds
    @Option(help: "Missed heartbeats before a node is declared dead (K1).") var liveness = Self.defaults.liveness
    @Option(help: "Write a state snapshot every N commands (K3).") var snapshotEvery = Self.defaults.snapshotEvery
    @Option(help: "Most turns in flight to the log at once (pipelined group commits; 1: one at a time).")
    var commitsInFlight = Self.defaults.commitsInFlight
    @Option(help: "Stage Manager windows per screen (L3).") var stageWindowLimit = Self.defaults.policy.stageWindowLimitPerScreen
    @Option(help: "Memory limit of a backgroundMedia app in MB (P9).")
    var backgroundMediaLimitMb = Self.defaults.policy.backgroundMediaMemoryLimitMB
    @Option(help: "PiP restore deadline in milliseconds (P6).")
    var pipRestoreDeadlineMs = Self.defaults.policy.pipRestoreDeadlineMilliseconds
    @Option(help: "Write the bound endpoints to this file once serving (for scripts using port 0).")
    var endpointsFile: String?
    @OptionGroup var keys: CoordinatorKeyOptions
    @OptionGroup var etcdSecurity: EtcdSecurityOptions
    @OptionGroup var http: HTTPOptions
    /// A bug planted on purpose, so that a test can show a checker catches it (the HA soak's
    /// `ignore-lease`). Never in a deployment: the coordinator says so in its log.
    @Option(help: .hidden) var plantBug: String?

    func validate() throws {
        if let plantBug, PlantedBug(rawValue: plantBug) == nil {
            throw ValidationError("--plant-bug: no planted bug '\(plantBug)'")
        }
        guard JournalDurability(rawValue: durability) != nil else {
            throw ValidationError("--durability must be full, normal or off, not '\(durability)'")
        }
        guard heartbeatMs > 0, liveness > 0 else { throw ValidationError("--heartbeat-ms and --liveness must be positive") }
        guard (1...64).contains(commitsInFlight) else { throw ValidationError("--commits-in-flight must be between 1 and 64") }
        if let etcd {
            do { _ = try EtcdEndpoint.list(parsing: etcd) } catch { throw ValidationError("--etcd: \(error)") }
            guard dataDir == nil else { throw ValidationError("--data-dir and --etcd exclude each other: in HA mode the log lives on etcd") }
            guard let name, !name.isEmpty else { throw ValidationError("--etcd needs --name (unique per coordinator)") }
            _ = try etcdSecurity.tls()
            guard leaseSeconds > 0 else { throw ValidationError("--lease-seconds must be positive") }
            guard etcdRequestTimeoutMs > 0 else { throw ValidationError("--etcd-request-timeout-ms must be positive") }
            guard leaderPulseMs > 0, suspectLeaderAfterMs >= 0 else {
                throw ValidationError("--leader-pulse-ms must be positive and --suspect-leader-after-ms not negative")
            }
            guard suspectLeaderAfterMs == 0 || suspectLeaderAfterMs >= 2 * leaderPulseMs else {
                throw ValidationError("--suspect-leader-after-ms must be at least two pulses (2 × --leader-pulse-ms), or 0")
            }
        } else if dataDir == nil {
            throw ValidationError("--data-dir is required (or --etcd for HA mode)")
        }
    }

    static let defaults = CoordinatorSettings.defaults
    static let defaultHA = HighAvailabilitySettings(etcd: [], name: "")

    /// The settings these flags say (`CoordinatorLaunch.arguments` is their inverse).
    func settings() throws -> CoordinatorSettings {
        var settings = CoordinatorSettings(
            commandEndpoint: commands, eventEndpoint: events, dataDirectory: dataDir ?? "",
            durability: JournalDurability(rawValue: durability) ?? .full,
            heartbeatIntervalMilliseconds: heartbeatMs, liveness: liveness, snapshotEvery: snapshotEvery,
            commitsInFlight: commitsInFlight,
            policy: PolicySettings(stageWindowLimitPerScreen: stageWindowLimit,
                                   backgroundMediaMemoryLimitMB: backgroundMediaLimitMb,
                                   pipRestoreDeadlineMilliseconds: pipRestoreDeadlineMs),
            security: try keys.security())
        if let etcd {
            settings.highAvailability = HighAvailabilitySettings(
                etcd: try EtcdEndpoint.list(parsing: etcd), name: name ?? "", prefix: etcdPrefix, leaseSeconds: leaseSeconds,
                requestTimeoutMilliseconds: etcdRequestTimeoutMs, advertisedCommandEndpoint: advertiseCommands, advertisedEventEndpoint: advertiseEvents,
                pulseMilliseconds: leaderPulseMs, suspicionMilliseconds: suspectLeaderAfterMs)
        }
        if etcd != nil { settings.highAvailability?.etcdTLS = try etcdSecurity.tls() }
        settings.plantedBug = plantBug.flatMap(PlantedBug.init(rawValue:))
        return settings
    }

    func run() async throws {
        global.bootstrapLogging()
        let logger = Logger(label: "camsync.coordinator")
        if let dataDir { try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true) }
        var settings = try settings()
        if let bug = settings.plantedBug {
            logger.warning("a bug is planted on purpose: \(bug.rawValue) (a test's; never in a deployment)")
        }
        // The web follower connects to the bound endpoints (resolved once the coordinator serves).
        let bound = BoundEndpoints()
        // Under CURVE the follower gets a key pair of its own, made here and admitted as an admin key:
        // it never leaves this process, and the follower only asks for snapshots and subscribes.
        var followerCurve: ClientCurve?
        if let security = settings.security, http.address != nil {
            let keys = try CurveKeyPair.generate()
            settings.security?.adminKeys.insert(keys.publicKey)
            // It reaches this coordinator (at its bound endpoints) with its own key, and the HA panel
            // asks the others with theirs (`--coordinator-keys`).
            var trusted = security.coordinators ?? TrustedCoordinators(entries: [])
            trusted.sharedKey = try CurveKeyPair(secretKey: security.secretKey).publicKey
            followerCurve = ClientCurve(publicKey: keys.publicKey, secretKey: keys.secretKey, coordinators: trusted)
        }
        let observation = try http.server(follow: bound.follow, curve: followerCurve,
                                          highAvailability: settings.highAvailability.map { ($0.etcd, $0.election, $0.etcdTLS) }, logger: logger)
        let server = try CoordinatorServer(settings: settings, logger: logger)
        let endpointsFile = self.endpointsFile
        let serving: @Sendable (CoordinatorServer.Endpoints) throws -> Void = { endpoints in
            bound.set(command: endpoints.command, event: endpoints.event)
            try bound.write(to: endpointsFile)
        }
        let service: any Service = settings.highAvailability == nil
            ? ServerService(name: "coordinator", start: { try serving(try server.start()) }, stop: { server.stop() })
            : EtcdCoordinatorService(server: server, serving: serving)
        let alongside = observation.map { observation in
            [observation.service { address in
                logger.info("serving http://\(address)/ (metrics at /metrics)")
                bound.set(http: address)
                try? bound.write(to: endpointsFile)
            }]
        } ?? []
        do {
            try await ServerService.runUntilSignalled(service, alongside: alongside, logger: logger)
        } catch {
            throw CleanExit.message("camsync coordinator: \(error)")
        }
        if let fatal = server.fatalError {
            logger.critical("coordinator stopped on a fatal error: \(fatal)")
            throw ExitCode(70)
        }
    }
}
