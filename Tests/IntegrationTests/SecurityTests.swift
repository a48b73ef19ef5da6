import CamsyncClient
import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Testing
import ZeroMQ

/// CURVE + ZAP on a real cluster: only listed keys get in, a node's id is bound to its key,
/// admin actions need the admin key, and no key ever reaches a log.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(2)))
struct SecurityTests {
    static func curve(_ pair: CurveKeyPair, _ cluster: LocalCluster) -> ClientCurve {
        ClientCurve(publicKey: pair.publicKey, secretKey: pair.secretKey, serverPublicKey: cluster.keys!.coordinator.publicKey)
    }

    @Test("an unknown key is refused: no reply, nothing delivered")
    func unknownKeyRefused() async throws {
        try await withCluster(curve: true) { cluster in
            let stranger = try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: "admin",
                                                 curve: Self.curve(try CurveKeyPair.generate(), cluster))
            defer { stranger.close() }
            let before = try cluster.coordinatorState().sequence
            #expect(throws: ClientError.self) { try stranger.send(.declareNodeDead("ipad-2"), timeoutMilliseconds: 1_500) }
            #expect(try cluster.coordinatorState().sequence == before)
        }
    }

    @Test("a plaintext client against a CURVE coordinator gets nothing through")
    func plaintextRefused() async throws {
        try await withCluster(curve: true) { cluster in
            let plain = try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: "admin")
            defer { plain.close() }
            #expect(throws: ClientError.self) { try plain.snapshot(timeoutMilliseconds: 1_500) }
        }
    }

    @Test("a valid node key cannot speak for another node, nor act for its apps, nor declare nodes dead, nor use another route")
    func impersonationForbidden() async throws {
        try await withCluster(curve: true) { cluster in
            let ipad2Key = try #require(cluster.keys?.nodes["ipad-2"])
            // The key's holder on its own route (the ipad-2 process is gone, so the route is free).
            let registration = try #require(try cluster.coordinatorState().state.nodes["ipad-2"]?.registration)
            cluster.signalNode("ipad-2", SIGKILL)
            func client(_ sender: String, routingID: String?) throws -> CoordinatorClient {
                try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: sender,
                                      curve: Self.curve(ipad2Key, cluster), routingID: routingID)
            }
            func code(_ client: CoordinatorClient, _ command: Command) throws -> Camsync_V1_ErrorCode? {
                do {
                    _ = try client.send(command)
                    return nil
                } catch ClientError.refused(let refusal) {
                    return refusal.code
                }
            }
            let asIpad2 = try client("ipad-2", routingID: "ipad-2")
            defer { asIpad2.close() }
            #expect(try code(asIpad2, .registerNode(registration)) == nil, "its own registration goes through")
            let before = try cluster.coordinatorState().sequence
            #expect(try code(asIpad2, .openFullScreen(AppID(device: "ipad-1", bundleID: "com.apple.camera"), trigger: .user)) == .forbidden)
            #expect(try code(asIpad2, .declareNodeDead("ipad-1")) == .forbidden)
            #expect(try code(asIpad2, .registerNode(NodeRegistration(node: "ipad-1", attributes: registration.attributes))) == .forbidden)
            #expect(try cluster.coordinatorState().sequence == before, "nothing changed")
            // Its own actions go through.
            #expect(try code(asIpad2, .openFullScreen(Apps.notes2, trigger: .user)) == nil)
            // The same key on any other route is refused (and then suspended: keep this last).
            let elsewhere = try client("ipad-2", routingID: "somewhere-else")
            defer { elsewhere.close() }
            #expect(try code(elsewhere, .goHome(device: "ipad-2")) == .forbidden)
        }
    }

    @Test("admin actions through the CLI: force-release, attach-display and drain need the admin key; a node's key is refused")
    func adminActionsThroughTheCLI() async throws {
        try await withCluster(curve: true) { cluster in
            try cluster.act("ipad-1", [
                .openFullScreen(Apps.call1, trigger: .user),
                .configureSession(Apps.call1, SessionConfiguration(camera: Apps.front1)),
                .startSession(Apps.call1),
            ])
            #expect(try cluster.coordinatorState().state.holder(of: Apps.builtIn1) == Apps.call1)
            // A node's key cannot stop another node's session (what force-release sends).
            let ipad2 = try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: "ipad-2",
                                              curve: Self.curve(try #require(cluster.keys?.nodes["ipad-2"]), cluster))
            defer { ipad2.close() }
            #expect(throws: ClientError.self) { try ipad2.send(.stopSession(Apps.call1)) }
            #expect(throws: ClientError.self) { try ipad2.send(.unregisterNode("ipad-1")) }
            // The CLI with the admin key (found through the run directory, like `ctl -f TOPOLOGY`).
            let keys = try #require(cluster.keys)
            let common = ["--coordinator", cluster.commandEndpoint, "--admin-key", keys.path("admin.key"),
                          "--coordinator-key", keys.path("coordinator.pub")]
            let release = try Self.runCLI(["ctl", "admin"] + common + ["force-release", "ipad-1/builtin"])
            #expect(release.status == 0, "\(release.output)")
            #expect(try cluster.coordinatorState().state.holder(of: Apps.builtIn1) == nil)
            #expect(try cluster.coordinatorState().state.sessionState(of: Apps.call1) == .stopped)
            // SPEC §1: an admin may attach a display to another device than its config names.
            let attach = try Self.runCLI(["ctl", "admin"] + common + ["attach-display", "display-1", "ipad-2"])
            #expect(attach.status == 0 && attach.output.contains("ok: attach-display display-1 ipad-2 → sequence"), "\(attach.output)")
            let attached = try cluster.coordinatorState()
            #expect(attached.state.nodes["display-1"]?.attachedTo == "ipad-2")
            // Again: nothing to do, refused as a no-op without a sequence.
            let again = try Self.runCLI(["ctl", "admin"] + common + ["attach-display", "display-1", "ipad-2"])
            #expect(again.status == 2 && again.output.contains("display-1 is already attached to ipad-2: nothing to do"), "\(again.output)")
            #expect(again.output.contains("alreadyExists"), "\(again.output)")
            #expect(try cluster.coordinatorState().sequence == attached.sequence, "the no-op took no sequence")
            let drain = try Self.runCLI(["ctl", "admin"] + common + ["drain", "ipad-2"])
            #expect(drain.status == 0, "\(drain.output)")
            #expect(drain.output.contains("ok: drain ipad-2"))
        }
    }

    static func runCLI(_ arguments: [String]) throws -> CommandResult {
        try runCommand(camsyncBinary(), arguments)
    }

    @Test("the admin key may declare a node dead; secret keys never appear in any log")
    func adminAndLogs() async throws {
        try await withCluster(curve: true) { cluster in
            let events = try cluster.eventSubscriber()
            defer { events.close() }
            let admin = try cluster.coordinatorClient()
            defer { admin.close() }
            // The subscription is live once a heartbeat arrives.
            try cluster.waitUntil(timeout: 5, what: "a heartbeat") { try events.next(timeoutMilliseconds: 500) != nil }
            let sequence = try admin.send(.declareNodeDead("ipad-2"))
            try cluster.waitUntil(timeout: 5, what: "the declare_node_dead batch") {
                guard let (_, envelope) = try events.next(timeoutMilliseconds: 500),
                      case .eventBatch(let batch)? = envelope.body else { return false }
                return batch.sequence == sequence && (try batch.domainEvents()).contains(.nodeLeft("ipad-2", .declaredDead))
            }
            // ipad-2 learns it was declared dead and rejoins (K2).
            try cluster.waitUntil(timeout: 10, what: "ipad-2 to rejoin") {
                try cluster.coordinatorState().state.nodes["ipad-2"]?.alive == true
            }
            let keys = try #require(cluster.keys)
            let secrets = [keys.coordinator.secretKey, keys.admin.secretKey] + keys.nodes.values.map(\.secretKey)
            for name in ["coordinator"] + cluster.topology.nodes.map(\.id) {
                let log = try String(contentsOfFile: cluster.logPath(name), encoding: .utf8)
                #expect(!log.isEmpty)
                for secret in secrets { #expect(!log.contains(secret), "a secret key appears in \(name).log") }
            }
        }
    }
}
