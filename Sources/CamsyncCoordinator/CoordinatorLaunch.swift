public import CamsyncCoordinatorCore
/// How a `camsync coordinator` process is started: its settings, and what only a process has (the
/// key files its CURVE keys are read from, the HTTP address, the log level, the endpoints file).
/// `arguments` is the one encoder of settings into a command line: the cluster (`LocalCluster`), the
/// benchmarks (`CoordinatorProcess`) and the tests use it, and `camsync coordinator` parses exactly
/// these flags back into the same settings (`CoordinatorLaunchTests`). Settings without a flag
/// (batch limit, retry window, message size, the CURVE keys themselves) keep their defaults.
public struct CoordinatorLaunch: Sendable, Equatable {
    /// Files holding the coordinator's secret key, the nodes' public keys and the admin keys.
    public struct KeyFiles: Sendable, Equatable {
        public var secretKey: String
        public var nodeKeys: String
        public var adminKeys: String
        /// The cluster's coordinators and their keys (`--coordinator-keys`), when each has its own pair.
        public var coordinatorKeys: String?
        public init(secretKey: String, nodeKeys: String, adminKeys: String, coordinatorKeys: String? = nil) {
            self.secretKey = secretKey
            self.nodeKeys = nodeKeys
            self.adminKeys = adminKeys
            self.coordinatorKeys = coordinatorKeys
        }
    }

    public var settings: CoordinatorSettings
    public var keyFiles: KeyFiles?
    /// `--http`: /metrics and the web view (nil: off).
    public var http: String?
    public var logLevel: String?
    public var endpointsFile: String?

    public init(settings: CoordinatorSettings, keyFiles: KeyFiles? = nil, http: String? = nil, logLevel: String? = nil,
                endpointsFile: String? = nil) {
        self.settings = settings
        self.keyFiles = keyFiles
        self.http = http
        self.logLevel = logLevel
        self.endpointsFile = endpointsFile
    }

    /// `coordinator …`: every setting that has a flag, given explicitly.
    public var arguments: [String] {
        let s = settings
        var arguments = ["coordinator", "--commands", s.commandEndpoint, "--events", s.eventEndpoint,
                         "--heartbeat-ms", "\(s.heartbeatIntervalMilliseconds)", "--liveness", "\(s.liveness)",
                         "--snapshot-every", "\(s.snapshotEvery)", "--commits-in-flight", "\(s.commitsInFlight)",
                         "--stage-window-limit", "\(s.policy.stageWindowLimitPerScreen)",
                         "--background-media-limit-mb", "\(s.policy.backgroundMediaMemoryLimitMB)",
                         "--pip-restore-deadline-ms", "\(s.policy.pipRestoreDeadlineMilliseconds)"]
        if let ha = s.highAvailability {
            arguments += ["--etcd", ha.etcd.map(\.description).joined(separator: ","), "--name", ha.name,
                          "--etcd-prefix", ha.prefix, "--lease-seconds", "\(ha.leaseSeconds)",
                          "--leader-pulse-ms", "\(ha.pulseMilliseconds)", "--suspect-leader-after-ms", "\(ha.suspicionMilliseconds)"]
            if !ha.advertisedCommandEndpoint.isEmpty { arguments += ["--advertise-commands", ha.advertisedCommandEndpoint] }
            if !ha.advertisedEventEndpoint.isEmpty { arguments += ["--advertise-events", ha.advertisedEventEndpoint] }
            arguments += ha.etcdTLS.map { ["--etcd-ca", $0.trustedCA, "--etcd-cert", $0.certificate, "--etcd-key", $0.privateKey] }
                ?? ["--etcd-plaintext"]
        } else {
            arguments += ["--data-dir", s.dataDirectory, "--durability", s.durability.rawValue]
        }
        if let keyFiles {
            arguments += ["--secret-key", keyFiles.secretKey, "--node-keys", keyFiles.nodeKeys, "--admin-keys", keyFiles.adminKeys]
            if let coordinatorKeys = keyFiles.coordinatorKeys { arguments += ["--coordinator-keys", coordinatorKeys] }
        }
        if let http { arguments += ["--http", http] }
        if let logLevel { arguments += ["--log-level", logLevel] }
        if let endpointsFile { arguments += ["--endpoints-file", endpointsFile] }
        return arguments
    }
}
