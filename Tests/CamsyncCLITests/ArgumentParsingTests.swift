import ArgumentParser
import Testing
@testable import camsync

/// Every subcommand parses the examples its help and the README document.
@Suite struct ArgumentParsingTests {
    @Test(arguments: [
        ["demo"],
        ["demo", "--json", "--pause-ms", "200"],
        ["coordinator", "--data-dir", "/var/lib/camsync", "--commands", "tcp://0.0.0.0:5555", "--events", "tcp://0.0.0.0:5556"],
        ["coordinator", "--data-dir", "/tmp/d", "--durability", "normal", "--heartbeat-ms", "250", "--liveness", "4"],
        ["node", "--config", "deploy/lab/ipad-1.yaml", "--control", "ipc:///tmp/ipad-1.sock"],
        ["keygen", "/etc/camsync/keys/ipad-1"],
        ["cluster", "up", "deploy/topologies/lab.yaml"],
        ["cluster", "status", "deploy/topologies/lab.yaml"],
        ["cluster", "down", "deploy/topologies/lab.yaml", "--grace", "5"],
        ["cluster", "logs", "deploy/topologies/lab.yaml", "ipad-1", "--lines", "20"],
        ["ctl", "status", "-f", "deploy/topologies/lab.yaml"],
        ["ctl", "status", "--coordinator", "tcp://127.0.0.1:5555", "--json"],
        ["cluster", "up", "deploy/topologies/ha.yaml"],
        ["ctl", "status", "-f", "deploy/topologies/ha.yaml"],
        ["ctl", "status", "--coordinator", "tcp://127.0.0.1:25755", "--no-follow-leader",
         "--admin-key", "/tmp/camsync-ha/keys/admin.key", "--coordinator-key", "/tmp/camsync-ha/keys/coordinator.pub"],
        ["ctl", "status", "--coordinator", "tcp://10.0.0.11:5555,tcp://10.0.0.12:5555"],
        ["ctl", "watch", "-f", "deploy/topologies/lab.yaml", "--device", "ipad-1", "--json"],
        ["ctl", "act", "-f", "deploy/topologies/lab.yaml", "ipad-1", "open", "com.example.videocall"],
        ["ctl", "act", "ipad-1", "session", "configure", "com.example.videocall", "--camera", "front", "--multitasking"],
        ["ctl", "act", "--control", "ipad-1=ipc:///tmp/ipad-1.sock", "ipad-1", "pip", "start", "com.example.videocall", "--programmatic"],
        ["ctl", "scenario", "run", "--local", "scenarios/camera-arbitration.yaml"],
        ["ctl", "admin", "-f", "deploy/topologies/lab.yaml", "force-release", "ipad-1/builtin"],
        ["ctl", "admin", "-f", "deploy/topologies/lab.yaml", "declare-dead", "display-1"],
        ["ctl", "admin", "-f", "deploy/topologies/lab.yaml", "drain", "ipad-2"],
        ["ctl", "admin", "-f", "deploy/topologies/lab.yaml", "attach-display", "display-1", "ipad-2"],
        ["soak", "--duration", "120", "--seed", "7"],
        ["flood", "--frames", "20000"],
        ["bench", "--quick"],
    ])
    func documentedExamplesParse(arguments: [String]) throws {
        _ = try Camsync.parseAsRoot(arguments)
    }

    @Test func actKeepsTheWholeActionIncludingDashes() throws {
        let parsed = try Camsync.parseAsRoot(["ctl", "act", "ipad-1", "pip", "start", "com.x", "--programmatic"])
        let act = try #require(parsed as? CtlActCommand)
        #expect(act.node == "ipad-1")
        #expect(act.action == ["pip", "start", "com.x", "--programmatic"])
    }

    @Test(arguments: [
        (["coordinator"], "--data-dir"),
        (["coordinator", "--data-dir", "/tmp/x", "--durability", "sometimes"], "--durability must be full, normal or off"),
        (["ctl", "scenario", "run"], "<files>"),
        (["cluster", "up"], "file"),
        (["ctl", "admin", "attach-display", "display-1"], "attach-display needs the display and the device"),
        (["ctl", "admin", "drain", "ipad-2", "ipad-1"], "drain takes one argument; 'ipad-1' is one too many"),
    ])
    func badArgumentsSayWhy(arguments: [String], expected: String) {
        do {
            _ = try Camsync.parseAsRoot(arguments)
            Issue.record("expected \(arguments) to be refused")
        } catch {
            #expect(Camsync.message(for: error).contains(expected) || Camsync.fullMessage(for: error).contains(expected))
        }
    }
}
