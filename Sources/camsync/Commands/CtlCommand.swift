import ArgumentParser

struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Inspect and drive a running cluster: status, watch, why, act, scenario.",
        discussion: """
            Find the cluster with --topology FILE (after `camsync cluster up FILE`), or give \
            --coordinator/--events and --control NODE=ENDPOINT explicitly.

            Examples (F=deploy/topologies/lab.yaml):
              camsync ctl status -f $F
              camsync ctl watch -f $F --json
              camsync ctl why -f $F ipad-1/com.example.videocall
              camsync ctl act -f $F ipad-1 open com.example.videocall
              camsync ctl scenario run --local scenarios/camera-arbitration.yaml
            """,
        subcommands: [CtlStatusCommand.self, CtlWatchCommand.self, CtlActCommand.self, CtlScenarioCommand.self, CtlAdminCommand.self, CtlWhyCommand.self])
}
