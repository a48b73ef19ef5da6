import ArgumentParser

@main
struct Camsync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camsync",
        abstract: "A camera-ownership, capture-session, layout and PiP sync cluster over ZeroMQ.",
        version: "0.1.0"
    )
}
