import ArgumentParser

@main
struct Camsync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camsync",
        abstract: "A camera-ownership, capture-session, layout and PiP sync cluster over ZeroMQ.",
        discussion: "A coordinator resolves who holds each camera; node processes stand in for iPads and external displays. Start with `camsync demo`, or see README.md to run your own cluster.",
        version: "0.1.0",
        subcommands: [DemoCommand.self, CoordinatorCommand.self, NodeCommand.self, CtlCommand.self, ClusterCommand.self,
                      BenchCommand.self, SoakCommand.self, SimCommand.self, FloodCommand.self, FuzzCommand.self, KeygenCommand.self,
                      EtcdAuthCommand.self, EtcdLogCopyCommand.self]
    )
}
