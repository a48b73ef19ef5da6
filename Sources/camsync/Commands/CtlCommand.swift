import ArgumentParser

struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Inspect and drive a running cluster: status, watch, why, act, scenario.",
        discussion: """
            Find the cluster with --topology FILE (after `camsync cluster up FILE`), or give
            --coordinator/--events and --control NODE=ENDPOINT explicitly.
            Examples:
              camsync ctl status -f deploy/topologies/lab.yaml
              camsync ctl watch -f deploy/topologies/lab.yaml --json
              camsync ctl why -f deploy/topologies/lab.yaml ipad-1/com.example.videocall
              camsync ctl act -f deploy/topologies/lab.yaml ipad-1 open com.example.videocall
              camsync ctl scenario run --local scenarios/camera-arbitration.yaml
            """,
        subcommands: [CtlStatusCommand.self, CtlWatchCommand.self, CtlActCommand.self, CtlScenarioCommand.self, CtlAdminCommand.self, CtlWhyCommand.self])
}
