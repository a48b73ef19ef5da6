import ArgumentParser
import CamsyncClient
import CamsyncPolicy
import Foundation

struct CtlWhyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Why an app's camera session, PiP window and audio session are as they are: the SPEC rule, the sequence and the command.",
        discussion: """
            Replays the coordinator's command log through the policy engine and reports, for NODE/APP, \
            the rule that made each decision (C2.4, C4, C6, A7, P5 …), the sequence and the command \
            that caused it, and the camera's holder with the sessions waiting for it in C6's order.

            Example (add --json for scripts):
              camsync ctl why -f deploy/topologies/lab.yaml ipad-1/com.example.videocall
            """)

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The app: NODE/BUNDLE-ID, e.g. ipad-1/com.example.videocall.") var app: String
    @Flag(help: "Print JSON instead of text.") var json = false
    @Option(help: "Seconds to wait for the coordinator.") var timeout: Double = 10

    func validate() throws {
        guard Self.appID(app) != nil else {
            throw ValidationError("the app must be NODE/BUNDLE-ID, e.g. ipad-1/com.example.videocall, not '\(app)'")
        }
    }

    static func appID(_ text: String) -> AppID? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let node = text[..<slash], bundle = text[text.index(after: slash)...]
        guard !node.isEmpty, !bundle.isEmpty else { return nil }
        return AppID(device: NodeID(String(node)), bundleID: String(bundle))
    }

    func run() throws {
        let id = Self.appID(app)!
        let resolved = try cluster.resolve()
        let replay: LogReplay
        do {
            replay = try resolved.withLeader(timeoutMilliseconds: Int(timeout * 1000)) { client, timeout in
                try client.replayLog(timeoutMilliseconds: timeout)
            }
        } catch let error as ClientError where error.refusal != nil {
            print("\(error)")
            throw ExitCode(2)
        } catch {
            print("coordinator not reachable at \(resolved.commandEndpoints.joined(separator: ",")): \(error)")
            throw ExitCode(2)
        }
        guard let report = WhyReport(app: id, replay: replay) else {
            let known = replay.engine.state.apps.keys.filter { $0.device == id.device }.map(\.bundleID).sorted()
            print("no app \(id) at sequence \(replay.sequence)" + (known.isEmpty ? " (no apps on \(id.device))" : "; apps on \(id.device): \(known.joined(separator: ", "))"))
            throw ExitCode(1)
        }
        if json {
            try CtlStatusCommand.printJSON(report)
            return
        }
        print(Self.render(report), terminator: "")
    }

    static func render(_ report: WhyReport) -> String {
        func decided(_ decided: WhyReport.Decided?) -> String {
            guard let decided else { return "" }
            guard let sequence = decided.sequence, let command = decided.command else {
                return "    rule \(decided.rule) (read from the state"
                    + (report.logStartsAt > 0 ? ": decided before sequence \(report.logStartsAt), where the log was compacted)\n" : ")\n")
            }
            return "    rule \(decided.rule), sequence \(sequence): \(command)\n" + (decided.event.map { "      → \($0)\n" } ?? "")
        }
        var out = "\(report.app) at sequence \(report.sequence): \(report.scene), role \(report.role)\n"
        if let session = report.session {
            out += "  camera session: \(session.state)\n" + decided(session.decided)
            if let camera = session.camera {
                out += "    camera \(camera.system): held by \(camera.holder ?? "nobody")"
                    + (camera.token > 0 ? ", token \(camera.token)" : "") + ", pressure \(camera.pressure)\n"
                out += "    waiting (C6, next first): " + (camera.waiters.isEmpty ? "nobody" : camera.waiters.joined(separator: ", ")) + "\n"
            }
        } else {
            out += "  camera session: none\n"
        }
        if let pip = report.pip {
            out += "  PiP: \(pip.window)\n" + decided(pip.decided)
        } else {
            out += "  PiP: no controller\n"
        }
        let audio = report.audio
        out += "  audio: \(audio.category), \(audio.active ? "active" : "inactive")"
            + (audio.interruptedBy.map { ", interrupted by \($0)" } ?? "") + (audio.ducked ? ", ducked" : "")
            + (audio.secondaryAudioSilenced ? ", secondary audio silenced" : "") + "\n"
        out += "    microphone: " + (audio.microphoneHolder.map { "held by \($0)" } ?? "free") + "\n" + decided(audio.decided)
        return out
    }
}
