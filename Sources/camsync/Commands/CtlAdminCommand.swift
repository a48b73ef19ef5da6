import ArgumentParser
import CamsyncClient
import CamsyncNode
import CamsyncPolicy
import ZeroMQ

struct CtlAdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Admin actions, sent straight to the coordinator with the admin key.",
        discussion: """
            These need the admin key when the cluster uses CURVE (found with -f TOPOLOGY, or \
            --admin-key/--coordinator-key); a node's key is refused (FORBIDDEN).

            Examples (F=deploy/topologies/lab.yaml):
              camsync ctl admin -f $F force-release ipad-1/builtin
              camsync ctl admin -f $F declare-dead display-1
              camsync ctl admin -f $F drain ipad-2
              camsync ctl admin -f $F attach-display display-1 ipad-2
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        /// Stop the session that holds a camera system; the camera passes on by C6.
        case forceRelease = "force-release"
        /// Declare a node dead now, with every K1 consequence.
        case declareDead = "declare-dead"
        /// Take a node out of the cluster for maintenance (unregister; it may register again).
        case drain
        /// Attach a display to a device, also one its configuration does not name (SPEC §1: only an
        /// admin may); it moves from the device it was attached to, if any.
        case attachDisplay = "attach-display"
    }

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "force-release, declare-dead, drain or attach-display.") var action: Action
    @Argument(help: "A camera system (NODE/builtin or DISPLAY/CAMERA) for force-release; a node id otherwise (attach-display: the display).")
    var target: String
    @Argument(help: "attach-display only: the device to attach the display to.") var device: String?

    func validate() throws {
        switch (action, device) {
        case (.attachDisplay, nil): throw ValidationError("attach-display needs the display and the device: attach-display DISPLAY DEVICE")
        case (.attachDisplay, _?), (_, nil): break
        case (_, let extra?): throw ValidationError("\(action.rawValue) takes one argument; '\(extra)' is one too many")
        }
    }

    /// The action as typed, for what is printed.
    var said: String { ([action.rawValue, target] + (device.map { [$0] } ?? [])).joined(separator: " ") }

    func run() throws {
        let resolved = try cluster.resolve()
        // HA: the leader's endpoint (a standby's NOT_LEADER followed once), then everything goes there.
        let endpoint = resolved.commandEndpoints.count > 1 ? try resolved.leaderCommandEndpoint() : resolved.commandEndpoint
        let client = try CoordinatorClient(context: ZMQContext(), endpoint: endpoint, sender: "admin",
                                           curve: resolved.curve)
        defer { client.close() }
        let command: Command
        switch action {
        case .declareDead: command = .declareNodeDead(NodeID(target))
        case .drain: command = .unregisterNode(NodeID(target))
        case .attachDisplay: command = .attachDisplay(display: NodeID(target), device: NodeID(device ?? ""))
        case .forceRelease:
            guard let system = NodeHistoryEntry.cameraSystem(target) else {
                throw ValidationError("'\(target)' is not a camera system: use NODE/builtin or DISPLAY/CAMERA")
            }
            let snapshot = try client.snapshot()
            guard snapshot.state.cameraSystems[system] != nil else {
                throw ValidationError("no camera system \(system); see `camsync ctl status`")
            }
            guard let holder = snapshot.state.holder(of: system) else {
                print("\(system) has no holder; nothing to release")
                return
            }
            command = .stopSession(holder)
        }
        do {
            let sequence = try client.send(command)
            print("ok: \(said) → sequence \(sequence)")
        } catch let error as ClientError {
            print("\(said): \(error)")
            throw ExitCode(2)
        }
    }
}
