import ArgumentParser
import CamsyncClient
import CamsyncPolicy
import CamsyncVerbs
import ZeroMQ

struct CtlActCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "act",
        abstract: "Perform a user/app action on a node, through that node's control socket.",
        discussion: ActionVerbs.help)

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Seconds to wait for the answer.") var timeout: Double = 15
    @Argument(help: "The node that acts (a device id, or a display id for display actions).") var node: String
    @Argument(parsing: .captureForPassthrough, help: "The action and its arguments, e.g. `open com.example.videocall`.")
    var action: [String] = []

    func run() throws {
        let command: Command
        do {
            command = try ActionVerbs.parse(node: NodeID(node), words: action)
        } catch {
            if error.isHelpRequest {
                print(error.message)
                return
            }
            throw ValidationError(error.message)
        }
        let resolved = try cluster.resolve()
        let endpoint = try resolved.controlEndpoint(node)
        let client = try ControlClient(context: ZMQContext(), endpoint: endpoint, node: node)
        defer { client.close() }
        do {
            let sequence = try client.act(command, timeoutMilliseconds: Int(timeout * 1000))
            print("ok: \(node) \(action.joined(separator: " ")) → sequence \(sequence)")
        } catch let error as ClientError {
            print("\(node) \(action.joined(separator: " ")): \(error)")
            throw ExitCode(2)
        }
    }
}
