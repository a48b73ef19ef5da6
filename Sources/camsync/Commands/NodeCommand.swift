import CamsyncConfig
import ArgumentParser
import CamsyncNode
import CamsyncNodeProcess
import Foundation
import Logging

struct NodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node",
        abstract: "Run a node: one iPad or one external display, described by a YAML config.",
        discussion: """
            Registers with the coordinator, keeps a replica of cluster state, fences the cameras it \
            hosts (C8) and takes user/app actions on its control socket (`camsync ctl act`).

            Example:
              camsync node --config deploy/lab/ipad-1.yaml --control ipc:///tmp/ipad-1.sock
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "The node's YAML config file (docs/OPERATIONS.md).") var config: String
    @Option(help: "The coordinator's command endpoint, or a comma-separated list of several coordinators' (K6: the node follows the leader).")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "The coordinator's event endpoint, or a comma-separated list of several coordinators': checked against the coordinator keys, not connected to (a node's feed comes on its command connections).")
    var events = "tcp://127.0.0.1:5556"
    @Option(help: "Control endpoint for `camsync ctl` (ipc:// path or tcp://127.0.0.1:PORT).") var control: String?
    @Option(help: "Heartbeat interval in milliseconds (K1).") var heartbeatMs: Int64 = 500
    @Option(help: "Missed coordinator heartbeats before reconnecting.") var liveness: Int64 = 3
    @Option(help: "Append fence decisions and app events as JSON lines to this file (soak history).") var history: String?
    @OptionGroup var keys: NodeKeyOptions
    @OptionGroup var http: HTTPOptions

    func run() async throws {
        global.bootstrapLogging()
        let logger = Logger(label: "camsync.node")
        let nodeConfig: NodeConfig
        do {
            nodeConfig = try NodeConfig(path: config)
        } catch {
            throw ValidationError("\(error)")
        }
        let controlEndpoint = control ?? "ipc://\(NSTemporaryDirectory())camsync-\(nodeConfig.id).sock"
        let settings = NodeSettings(
            config: nodeConfig, coordinatorCommandEndpoint: coordinator, coordinatorEventEndpoint: events,
            controlEndpoint: controlEndpoint, heartbeatIntervalMilliseconds: heartbeatMs, liveness: liveness,
            security: try keys.security(), historyPath: history)
        guard !settings.coordinatorCommandEndpoints.isEmpty, !settings.coordinatorEventEndpoints.isEmpty else {
            throw ValidationError("no endpoint of --coordinator/--events is a trusted coordinator's (--coordinator-keys lists none of them)")
        }
        let observation = try http.server(logger: logger)
        let server = try NodeServer(settings: settings, logger: logger)
        let service = ServerService(name: "node", start: { try server.start() }, stop: { server.stop() })
        let alongside = observation.map { [$0.service { address in logger.info("serving http://\(address)/metrics") }] } ?? []
        do {
            try await ServerService.runUntilSignalled(service, alongside: alongside, logger: logger)
        } catch {
            throw CleanExit.message("camsync node: \(error)")
        }
    }
}
